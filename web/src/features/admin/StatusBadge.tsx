import { Badge } from '@chakra-ui/react';
import type { AdminUser } from '../../api/generated';
import { statusLabel, type StatusLabel } from './users';

const STATUS_PALETTE: Record<StatusLabel, string> = { active: 'green', inactive: 'gray', banned: 'red' };

/** A user's status as the admin list shows it: 'banned' wins over active/inactive (product §4). */
export function StatusBadge({ user }: { user: Pick<AdminUser, 'isBanned' | 'status'> }) {
  const label = statusLabel(user);
  return (
    <Badge colorPalette={STATUS_PALETTE[label]} variant="subtle" data-testid="admin-user-status">
      {label}
    </Badge>
  );
}
