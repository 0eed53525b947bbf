// The privacy notice (product §2 "legal", §9). It describes what Coffer's code really collects and
// keeps; change it with the code it describes.
import { Link, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { SESSION_KEY } from '../auth/session';
import { Bullets, LegalDocument, legalLinkProps, type LegalSection } from './LegalDocument';

export const PRIVACY_LAST_UPDATED = 'September 19, 2025';

const contactLink = (
  <Link asChild {...legalLinkProps}>
    <RouterLink to="/contact">contact page</RouterLink>
  </Link>
);

export const PRIVACY_SECTIONS: LegalSection[] = [
  {
    id: 'information-we-collect',
    title: 'What information we collect',
    body: (
      <>
        <Text>We collect only what it takes to run your account and your backups:</Text>
        <Bullets
          items={[
            <>
              <strong>Account details</strong>: your name and e-mail address. Your password is stored only as
              a one-way hash (argon2id); your API key is stored sealed with AES-256 so that only you can
              display it again.
            </>,
            <>
              <strong>Agent details</strong>: for each backup agent you connect, the name you gave it, the
              server's hostname, its operating system and agent version, and when it was last seen.
            </>,
            <>
              <strong>Backup records</strong>: the labels of your databases (never their connection strings),
              each backup's and restore's time, size, status and error message, the fingerprint of the key a
              backup was encrypted with (a one-way value that cannot be turned back into the key), and the
              encrypted backup files themselves.
            </>,
            <>
              <strong>Settings and history</strong>: your backup frequency and retention, your notification
              choices and the address they go to, and an audit log of actions on your account.
            </>,
            <>
              <strong>Connection data</strong>: the IP address a sign-in or password-reset request comes from,
              counted for 15 minutes to stop repeated guessing. We keep no access logs of your visits.
            </>,
            <>
              <strong>Payment data</strong>: if you buy a paid plan, the payment is handled by our card
              payment provider. Your card number goes to them and is never sent to or stored by Coffer.
            </>,
          ]}
        />
      </>
    ),
  },
  {
    id: 'zero-knowledge',
    title: 'What we never receive',
    body: (
      <>
        <Text>
          Coffer is built so that we cannot read your data. The agent on your server dumps each database,
          compresses it and encrypts it with AES-256 using a master key that is created on your server and
          never leaves it. We receive and store only the encrypted file.
        </Text>
        <Bullets
          items={[
            'Your database connection strings stay in the agent configuration on your server.',
            'Your master encryption key stays on your server; we cannot decrypt your backups or recover a lost key.',
            'The contents of your databases reach us only as ciphertext.',
          ]}
        />
      </>
    ),
  },
  {
    id: 'how-we-use-information',
    title: 'How we use your information',
    body: (
      <Bullets
        items={[
          'To create and secure your account, sign you in and reset your password when you ask.',
          'To run, schedule, store, restore and delete your backups, and to show their progress and history.',
          'To send the e-mails you choose: backup success or failure, agent disconnection, test notifications and password reset links.',
          'To enforce plan limits and protect the service, for example by limiting repeated sign-in attempts.',
        ]}
      />
    ),
  },
  {
    id: 'cookies-and-local-storage',
    title: 'Cookies and local storage',
    body: (
      <>
        <Text>
          The Coffer web app sets no cookies and loads no analytics, advertising or tracking scripts. When you
          sign in, it keeps one entry in your browser's local storage, named <code>{SESSION_KEY}</code>,
          holding your session token and basic account details (name, e-mail address, role and API key) so
          that you stay signed in. It is removed when you sign out or your session expires.
        </Text>
      </>
    ),
  },
  {
    id: 'where-data-is-stored',
    title: 'Where your information is stored',
    body: (
      <>
        <Text>
          Our servers are located in the United States. Account data and backup records are kept in the
          service's databases there; encrypted backup files are kept in the storage location configured for
          the service (a disk volume or an S3-compatible bucket). If you use Coffer from outside the United
          States, your information is transferred to and processed in the United States.
        </Text>
        <Text>E-mail notifications are delivered through an e-mail relay service.</Text>
      </>
    ),
  },
  {
    id: 'retention',
    title: 'How long we keep your information',
    body: (
      <Bullets
        items={[
          'Backups are deleted automatically once they are older than the retention period you choose in Settings (within the limit of your plan), or earlier when you delete them.',
          'Account details, agent details, settings and backup records are kept for as long as your account exists.',
          'When your account is deleted, its agents, database labels, settings, backup and restore records, encrypted backup files and notification settings are deleted with it. Its audit log (actions with their times, database and agent names, and e-mail address changes) is kept as a record.',
          'Password reset links expire after one hour and can be used once.',
          'Records of the e-mails we sent you are kept for 30 days; sign-in and password-reset attempt counters for 15 minutes.',
          'Internal records of account and backup events are kept for 7 days.',
        ]}
      />
    ),
  },
  {
    id: 'security',
    title: 'How we keep your information safe',
    body: (
      <>
        <Text>
          Backups are encrypted on your server before they are sent, so a breach of our storage would expose
          only ciphertext. Every restore verifies the whole file with the key on your server before any data
          is touched. Passwords are hashed, API keys are looked up by a keyed hash and stored sealed, and our
          logs never contain passwords, API keys, tokens or connection strings.
        </Text>
        <Text>
          No system is perfectly secure. Keep your password and API key private, and keep a copy of your
          master key somewhere safe: without it, nobody — including us — can decrypt your backups.
        </Text>
      </>
    ),
  },
  {
    id: 'minors',
    title: 'Information from minors',
    body: (
      <Text>
        Coffer is not meant for anyone under 18 years of age, and we do not knowingly collect information from
        them. If you believe a person under 18 has created an account, please tell us through our{' '}
        {contactLink} and we will delete the account and its data.
      </Text>
    ),
  },
  {
    id: 'your-privacy-rights',
    title: 'Your privacy rights',
    body: (
      <>
        <Text>Depending on where you live, you may have rights over your personal information:</Text>
        <Bullets
          items={[
            <>
              <strong>European Economic Area, United Kingdom and Switzerland</strong>: to access, correct or
              delete your information, to restrict or object to its processing, to receive it in a portable
              form, and to complain to your data protection authority. Where we rely on your consent, you may
              withdraw it at any time.
            </>,
            <>
              <strong>Canada</strong>: to access and correct your information and to withdraw consent.
            </>,
            <>
              <strong>Australia and New Zealand</strong>: to access and correct your information.
            </>,
          ]}
        />
        <Text>
          You can change your name and e-mail address in your Profile, and see your account's history on the
          Audit Logs page. To exercise any other right, including deleting your account, write to us through
          our {contactLink}. We may ask you to confirm your identity first.
        </Text>
      </>
    ),
  },
  {
    id: 'do-not-track',
    title: 'Do-not-track controls',
    body: (
      <Text>
        Most browsers can send a Do-Not-Track signal. There is no agreed standard for responding to it, so we
        do not act on it; Coffer does not track you across other websites whether or not you send it.
      </Text>
    ),
  },
  {
    id: 'us-state-rights',
    title: 'Privacy rights of United States residents',
    body: (
      <>
        <Text>
          If you live in a US state with a consumer privacy law (such as California, Colorado, Connecticut,
          Utah or Virginia), you have the right to know what personal information we collect and how we use
          it, to access it, to have it corrected or deleted, and not to be discriminated against for using
          these rights. Requests go through our {contactLink}.
        </Text>
        <Text>
          The categories we collect are identifiers (name, e-mail address) and account and service records
          (agents, databases and backups), as described in section 1.
        </Text>
      </>
    ),
  },
  {
    id: 'no-sale-or-sharing',
    title: 'Sale and sharing of personal information',
    body: (
      <Text>
        We do not sell your personal information and do not share it for cross-context behavioural
        advertising. We have not sold or shared any personal information in the preceding 12 months.
      </Text>
    ),
  },
  {
    id: 'updates',
    title: 'Updates to this notice',
    body: (
      <Text>
        We may update this notice when the service changes. The date at the top shows when it was last
        updated.
      </Text>
    ),
  },
  {
    id: 'contact',
    title: 'How to contact us',
    body: <Text>Questions or requests about this notice are welcome through our {contactLink}.</Text>,
  },
];

export function PrivacyPage() {
  return (
    <LegalDocument
      title="Privacy Policy"
      lastUpdated={PRIVACY_LAST_UPDATED}
      intro={
        <Text>
          This notice explains what information Coffer, the encrypted MongoDB backup service, collects when
          you use this website, the web app and the backup agent, what we do with it, and the choices you
          have.
        </Text>
      }
      sections={PRIVACY_SECTIONS}
    />
  );
}
