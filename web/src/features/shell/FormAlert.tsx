import { Alert } from '@chakra-ui/react';

/** Inline success or error message under a form or card. */
export function FormAlert({
  status,
  children,
}: {
  status: 'error' | 'success' | 'info' | 'warning';
  children: string;
}) {
  return (
    <Alert.Root status={status} role={status === 'error' ? 'alert' : 'status'}>
      <Alert.Indicator />
      <Alert.Title fontWeight="normal">{children}</Alert.Title>
    </Alert.Root>
  );
}
