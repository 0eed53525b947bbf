import { HStack, Text } from '@chakra-ui/react';
import type { AuditLogDetails } from '../../api/generated';
import { formatBackupDate, formatBytes } from '../../lib/format';
import { formatDuration, formatExactCount } from './format';

/** What `name` names, by the entry's entity: an agent's name, an article's title. */
const NAME_LABELS: Record<string, string> = { Agent: 'Agent', Article: 'Article' };

/** Each field the audit service may write besides name, how it is labelled and how its value reads. */
const SHOWN: Array<{ label: string; text: (d: AuditLogDetails) => string | undefined }> = [
  { label: 'Host', text: (d) => d.hostname },
  { label: 'Database', text: (d) => d.databaseName },
  { label: 'Type', text: (d) => d.type },
  { label: 'Backup of', text: (d) => (d.backupTimestamp ? formatBackupDate(d.backupTimestamp) : undefined) },
  { label: 'Size', text: (d) => (d.size !== undefined ? formatBytes(d.size) : undefined) },
  { label: 'Duration', text: (d) => (d.durationMs !== undefined ? formatDuration(d.durationMs) : undefined) },
  {
    label: 'Documents',
    text: (d) =>
      d.documentsRestored !== undefined
        ? `${formatExactCount(d.documentsRestored)} restored, ${formatExactCount(d.documentsFailed ?? 0)} failed`
        : undefined,
  },
  { label: 'Rule', text: (d) => d.rule },
];

/** The entry's details on one line: 'Database: shop · Size: 1.2 MB · Duration: 4 s', then the summary and any error. */
export function AuditDetails({
  details,
  entity,
}: {
  details: AuditLogDetails | null | undefined;
  /** The entry's entity ('Agent', 'Backup', ...): it says what `name` is. */
  entity?: string;
}) {
  const d = details ?? {};
  const shown = [
    { label: NAME_LABELS[entity ?? ''] ?? 'Name', text: (x: AuditLogDetails) => x.name },
    ...SHOWN,
  ];
  const parts = shown.flatMap(({ label, text }) => {
    const value = text(d);
    return value === undefined || value === '' ? [] : [{ label, value }];
  });
  const { value, error } = d;
  if (parts.length === 0 && !value && !error) {
    return <Text color="fg.subtle">—</Text>;
  }
  return (
    <HStack gap="3" wrap="wrap" fontSize="sm" data-testid="audit-details">
      {parts.map((p) => (
        <Text key={p.label}>
          <Text as="span" color="fg.muted">
            {p.label}:
          </Text>{' '}
          {p.value}
        </Text>
      ))}
      {value && <Text>{value}</Text>}
      {error && (
        <Text color="fg.error" title={error}>
          {error.length > 120 ? `${error.slice(0, 120)}...` : error}
        </Text>
      )}
    </HStack>
  );
}
