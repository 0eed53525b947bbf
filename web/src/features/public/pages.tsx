// The not-found page.
import { Link, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { PlaceholderPage } from './PlaceholderPage';

const linkProps = { color: 'brand.fg', fontWeight: 'medium' } as const;

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
