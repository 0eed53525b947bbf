// Backup and restore status badges (product §2, §4): pending yellow 'Pending', in-progress blue with a
// spinner 'In Progress', completed green, failed red, anything else grey with the capitalised status.
import { Badge, Spinner } from '@chakra-ui/react';
import type { JobStatus } from '../../api/generated';
import { statusLabel, statusPalette } from './status';

/**
 * `spinWhilePending`: the backups table spins for every unfinished status (a pending backup is
 * already being set up); the restore history spins only for in-progress.
 */
export function StatusBadge({
  status,
  spinWhilePending = false,
}: {
  status: JobStatus;
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
