// Pages still being written (KB, admin) and the not-found page.
import { Link, Text } from '@chakra-ui/react';
import { Link as RouterLink, useParams } from 'react-router';
import { PlaceholderPage } from './PlaceholderPage';

const linkProps = { color: 'brand.fg', fontWeight: 'medium' } as const;

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
