// Backup and restore status badges (spec §2, §4): pending yellow 'Pending', in-progress blue with a
// spinner 'In Progress', completed green, failed red, anything else grey with the capitalised status.
import { Badge, Spinner } from '@chakra-ui/react';
import type { JobStatusValue } from '../../api/types';

export function statusLabel(status: JobStatusValue): string {
  return String(status)
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

function statusPalette(status: JobStatusValue): string {
  switch (status) {
    case 'completed':
      return 'green';
    case 'failed':
      return 'red';
    case 'pending':
      return 'yellow';
    case 'in-progress':
      return 'blue';
    default:
      return 'gray';
  }
}

export const isActiveStatus = (status: JobStatusValue) => status === 'pending' || status === 'in-progress';

/**
 * `spinWhilePending`: the backups table spins for every unfinished status (a pending backup is
 * already being set up); the restore history spins only for in-progress.
 */
export function StatusBadge({
  status,
  spinWhilePending = false,
}: {
  status: JobStatusValue;
  spinWhilePending?: boolean;
}) {
  const spin = status === 'in-progress' || (spinWhilePending && status === 'pending');
  return (
    <Badge colorPalette={statusPalette(status)} variant="subtle" gap="1.5" data-status={status}>
      {spin && <Spinner size="xs" borderWidth="1.5px" />}
      {statusLabel(status)}
    </Badge>
  );
}
