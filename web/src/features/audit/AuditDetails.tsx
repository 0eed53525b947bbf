import { HStack, Text } from '@chakra-ui/react';
import type { AuditLogDetails } from '../../api/generated';

const SHOWN: { key: keyof AuditLogDetails; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'hostname', label: 'Host' },
  { key: 'type', label: 'Type' },
  { key: 'databaseName', label: 'Database' },
];

/** The useful detail fields on one line: 'Name: x · Host: y · Type: manual'. */
export function AuditDetails({ details }: { details: AuditLogDetails | null | undefined }) {
  const parts = SHOWN.flatMap(({ key, label }) => {
    const value = details?.[key];
    return value === undefined || value === null || value === '' ? [] : [{ label, value: String(value) }];
  });
  const error = details?.error;
  if (parts.length === 0 && !error) {
    return <Text color="fg.subtle">—</Text>;
  }
  return (
    <HStack gap="3" wrap="wrap" fontSize="sm">
      {parts.map((p) => (
        <Text key={p.label}>
          <Text as="span" color="fg.muted">
            {p.label}:
          </Text>{' '}
          {p.value}
        </Text>
      ))}
      {error && (
        <Text color="fg.error" title={error}>
          {error.length > 50 ? `${error.slice(0, 50)}...` : error}
        </Text>
      )}
    </HStack>
  );
}
