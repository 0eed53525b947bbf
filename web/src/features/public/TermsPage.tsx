// The terms of service (product §2 "legal", §9): the constants of §9 appear exactly as given there.
import { Link, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { Bullets, LegalDocument, legalLinkProps, type LegalSection } from './LegalDocument';

export const TERMS_LAST_UPDATED = 'April 30, 2025';

const link = (to: string, label: string) => (
  <Link asChild {...legalLinkProps}>
    <RouterLink to={to}>{label}</RouterLink>
  </Link>
);

export const TERMS_SECTIONS: LegalSection[] = [
  {
    id: 'agreement',
    title: 'Agreement to these terms',
    body: (
      <Text>
        These terms are an agreement between you and Coffer about your use of this website, the Coffer web app
        and the Coffer backup agent (together, the "Services"). By creating an account or using the Services
        you agree to them. If you do not agree, do not use the Services.
      </Text>
    ),
  },
  {
    id: 'services',
    title: 'Our services',
    body: (
      <Text>
        Coffer backs up MongoDB databases. A backup agent that you install on your own server dumps your
        databases with the MongoDB tools, encrypts each dump with AES-256 using a key kept on that server, and
        uploads the encrypted file to Coffer. From the dashboard you schedule, trigger, download, restore and
        delete those backups.
      </Text>
    ),
  },
  {
    id: 'eligibility',
    title: 'Who may use the Services',
    body: (
      <Text>
        You must be at least 13 years old to use the Services. If you are under 18, you may use them only with
        the permission and supervision of a parent or guardian. If you use the Services for an organisation,
        you confirm that you may bind it to these terms.
      </Text>
    ),
  },
  {
    id: 'account',
    title: 'Your account and API key',
    body: (
      <Text>
        Keep your account details accurate and your password and API key secret: anyone holding your API key
        can connect an agent to your account. You are responsible for what happens under your account. If you
        believe your key was exposed, regenerate it in Settings; the old key stops working at once.
      </Text>
    ),
  },
  {
    id: 'your-data',
    title: 'Your data and your encryption key',
    body: (
      <>
        <Text>
          Your databases and backups remain yours. We store your backups only in encrypted form and use them
          only to provide the Services to you.
        </Text>
        <Text>
          The master key that encrypts your backups is created and kept on your server; we never receive it.
          You are responsible for keeping a copy of it: if it is lost, your backups cannot be decrypted by
          anyone, including us. A restore replaces the current contents of the target database; check the
          database name before you confirm one.
        </Text>
      </>
    ),
  },
  {
    id: 'acceptable-use',
    title: 'Acceptable use',
    body: (
      <>
        <Text>You agree not to:</Text>
        <Bullets
          items={[
            'back up data you have no right to copy or store;',
            'probe, scan or test the vulnerability of the Services, or get around their limits or security;',
            'interfere with the Services or with other customers, for example by overloading them;',
            'use the Services to break any law.',
          ]}
        />
      </>
    ),
  },
  {
    id: 'payment',
    title: 'Purchases and payment',
    body: (
      <Text>
        We accept payment by PayPal, Mastercard and Visa. Prices are in US dollars. You agree to give current
        and complete payment details and authorise us to charge your payment method for the plan you choose.
      </Text>
    ),
  },
  {
    id: 'subscriptions',
    title: 'Subscriptions, renewal and cancellation',
    body: (
      <Bullets
        items={[
          'Paid plans are subscriptions that renew automatically at the end of each billing period until you cancel.',
          'You can cancel at any time in your account (Profile → Billing & Plan) by moving to the Free plan. The cancellation takes effect at the end of the current paid term.',
          'All purchases are non-refundable.',
          'The Free plan lets you try the Services with its limits at no cost.',
        ]}
      />
    ),
  },
  {
    id: 'plan-limits',
    title: 'Plan limits',
    body: (
      <Text>
        Each plan limits the storage you may use, the number of databases that are backed up, how often
        backups run and how long they are kept. Databases beyond your plan's limit are not backed up or
        restored, backups that would exceed your storage limit are refused, and backups older than your
        retention setting are deleted automatically. With the retention lock on (Settings), a backup cannot be
        deleted before its retention date by anyone, and turning the lock off takes effect only after a delay
        announced by e-mail.
      </Text>
    ),
  },
  {
    id: 'availability',
    title: 'Availability and changes to the Services',
    body: (
      <Text>
        We work to keep the Services available, but they may be interrupted for maintenance, updates or
        reasons outside our control. We may change, add or remove features.
      </Text>
    ),
  },
  {
    id: 'termination',
    title: 'Suspension and termination',
    body: (
      <Text>
        We may suspend or close an account that breaks these terms. A suspended account can no longer use the
        Services. You may stop using the Services at any time and ask us through our{' '}
        {link('/contact', 'contact page')} to delete your account; deleting an account deletes its backups,
        except backups under the retention lock: those are kept until their retention date and then deleted.
      </Text>
    ),
  },
  {
    id: 'disclaimer',
    title: 'Disclaimer',
    body: (
      <Text>
        The Services are provided "as is" and "as available". To the extent the law allows, we disclaim all
        warranties, express or implied, including that the Services will be uninterrupted or error-free or
        that every backup can be restored. Test your restores regularly.
      </Text>
    ),
  },
  {
    id: 'liability',
    title: 'Limitation of liability',
    body: (
      <Text>
        To the extent the law allows, we are not liable for indirect, incidental, special or consequential
        damages, or for lost data, profits or revenue. Our total liability for any claim about the Services is
        limited to the amount you paid us in the 6 months before the event that gave rise to the claim.
      </Text>
    ),
  },
  {
    id: 'governing-law',
    title: 'Governing law and disputes',
    body: (
      <Text>
        These terms are governed by the laws of the Netherlands. Any dispute about them or the Services will
        be brought before the competent courts of Utrecht, the Netherlands, unless mandatory consumer law
        where you live gives you another choice.
      </Text>
    ),
  },
  {
    id: 'privacy',
    title: 'Privacy',
    body: (
      <Text>
        Our {link('/privacy', 'Privacy Policy')} explains what information we collect and how we use it.
      </Text>
    ),
  },
  {
    id: 'changes',
    title: 'Changes to these terms',
    body: (
      <Text>
        We may update these terms. The date at the top shows when they were last updated; continuing to use
        the Services after a change means you accept the updated terms.
      </Text>
    ),
  },
  {
    id: 'contact',
    title: 'Contact us',
    body: (
      <Text>Questions about these terms are welcome through our {link('/contact', 'contact page')}.</Text>
    ),
  },
];

export function TermsPage() {
  return (
    <LegalDocument
      title="Terms of Service"
      lastUpdated={TERMS_LAST_UPDATED}
      intro={
        <Text>
          Please read these terms carefully before using Coffer. They explain your rights and obligations and
          ours.
        </Text>
      }
      sections={TERMS_SECTIONS}
    />
  );
}
