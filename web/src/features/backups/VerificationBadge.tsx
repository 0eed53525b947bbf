// Verified backups (issue 20): under a backup's status, what its newest verification found. The
// agent restored that very file into a scratch database and compared each collection's document
// count, index definitions and content digest with what it backed up.
import { Badge, Stack, Text } from '@chakra-ui/react';
import type { Backup } from '../../api/generated';
import { formatBackupDate } from '../../lib/format';

type Verification = NonNullable<Backup['verification']>;

/** "6 collections, 1,540 documents, indexes and content digest checked" */
export function checkedText(v: Verification): string {
  const { collections, documents } = v.checked;
  return `${collections.toLocaleString('en-US')} ${collections === 1 ? 'collection' : 'collections'}, ${documents.toLocaleString('en-US')} ${
    documents === 1 ? 'document' : 'documents'
  }, indexes and content digest checked`;
}

/** The first difference, or why the verification could not run. */
export function failureText(v: Verification): string {
  const d = v.difference;
  if (!d) return v.error ?? 'The verification failed';
  if (d.what === 'collection') return `${d.collection}: expected ${d.expected}, found ${d.found}`;
  if (d.what === 'documents') return `${d.collection}: ${d.expected} documents expected, ${d.found} found`;
  if (d.what === 'indexes') return `${d.collection}: index ${d.expected} expected, found ${d.found}`;
  return `${d.collection}: content digest differs`;
}

export function VerificationBadge({ verification: v }: { verification: Verification }) {
  const at = v.completedAt ?? v.createdAt;
  if (v.status === 'pending' || v.status === 'in-progress')
    return (
      <Badge
        size="xs"
        variant="subtle"
        colorPalette="blue"
        data-testid="verification-badge"
        data-status={v.status}
      >
        Verifying…
      </Badge>
    );
  const ok = v.status === 'verified';
  const detail = ok ? checkedText(v) : failureText(v);
  return (
    <Stack gap="0.5" align="flex-start" data-testid="verification-badge" data-status={v.status}>
      <Badge size="xs" variant="subtle" colorPalette={ok ? 'green' : 'red'} title={detail}>
        {ok ? 'Verified' : 'Verification failed'}
      </Badge>
      <Text fontSize="xs" color={ok ? 'fg.muted' : 'fg.error'} maxW="56" lineClamp={2} title={detail}>
        {formatBackupDate(at)}: {detail}
      </Text>
    </Stack>
  );
}
