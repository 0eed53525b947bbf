import { Alert } from '@chakra-ui/react';
import type { AdminError } from './users';

/** The admin console's inline red message (product §8), with the server's reason under it when it gave one. */
export function AdminErrorAlert({ error }: { error: AdminError }) {
  return (
    <Alert.Root status="error" role="alert" data-testid="admin-error">
      <Alert.Indicator />
      <Alert.Content>
        <Alert.Title fontWeight="normal">{error.title}</Alert.Title>
        {error.detail && <Alert.Description>{error.detail}</Alert.Description>}
      </Alert.Content>
    </Alert.Root>
  );
}
