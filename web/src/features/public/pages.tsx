// Content pages that are still short: Features, About, Contact, Privacy, Terms, KB, Admin.
import { Link, Text } from '@chakra-ui/react';
import { Link as RouterLink, useParams } from 'react-router';
import { PlaceholderPage } from './PlaceholderPage';

const linkProps = { color: 'brand.fg', fontWeight: 'medium' } as const;

export function FeaturesPage() {
  return (
    <PlaceholderPage heading="Features">
      <Text color="fg.muted">
        AES-256 encryption at the source with keys you hold, a zero-knowledge design, scheduling with
        adjustable retention, restores from the dashboard, and a full backup history.
      </Text>
      <Link asChild {...linkProps}>
        <RouterLink to="/register">Start Free Trial</RouterLink>
      </Link>
    </PlaceholderPage>
  );
}

export function AboutPage() {
  return (
    <PlaceholderPage heading="About Coffer">
      <Text color="fg.muted">
        Coffer backs up MongoDB databases automatically and encrypts them before they leave your server.
      </Text>
      <Text>
        <Link asChild {...linkProps}>
          <RouterLink to="/features">See the features</RouterLink>
        </Link>{' '}
        or{' '}
        <Link asChild {...linkProps}>
          <RouterLink to="/contact">get in touch</RouterLink>
        </Link>
        .
      </Text>
    </PlaceholderPage>
  );
}

export function ContactPage() {
  return <PlaceholderPage heading="Contact" />;
}

export function PrivacyPage() {
  return <PlaceholderPage heading="Privacy Policy" />;
}

export function TermsPage() {
  return <PlaceholderPage heading="Terms of Service" />;
}

export function KnowledgeBasePage() {
  return <PlaceholderPage heading="How can we help you?" />;
}

export function KnowledgeBaseArticlePage() {
  const { slug = '' } = useParams();
  return (
    <PlaceholderPage heading="Knowledge Base">{slug && <Text color="fg.muted">{slug}</Text>}</PlaceholderPage>
  );
}

export function AdminPage() {
  return <PlaceholderPage heading="Admin Dashboard" />;
}

export function AdminKbListPage() {
  return <PlaceholderPage heading="Knowledge Base Articles" />;
}

export function AdminKbEditorPage() {
  const { id } = useParams();
  return <PlaceholderPage heading={id ? 'Edit Article' : 'New Article'} />;
}

export function NotFoundPage() {
  return (
    <PlaceholderPage heading="Page not found">
      <Text color="fg.muted">The page you're looking for doesn't exist.</Text>
      <Link asChild {...linkProps}>
        <RouterLink to="/">Return to Home</RouterLink>
      </Link>
    </PlaceholderPage>
  );
}
