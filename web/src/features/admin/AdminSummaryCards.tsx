// The admin console's summary cards (product §2): Users, Banned, Inactive, Backups with count and size.
import type { ReactNode } from 'react';
import { Card, SimpleGrid, Text } from '@chakra-ui/react';
import type { AdminBackupStatsApiResponse } from '../../api/generated';
import { formatBytes, formatCount } from '../../lib/format';
import type { UserCounts } from './users';

function SummaryCard({ label, value, children }: { label: string; value: string; children?: ReactNode }) {
  return (
    <Card.Root size="sm" data-testid={`admin-summary-${label}`}>
      <Card.Body gap="1">
        <Text fontSize="sm" fontWeight="medium" color="fg.muted">
          {label}
        </Text>
        <Text fontSize="2xl" fontWeight="bold" lineHeight="short" data-testid="admin-summary-value">
          {value}
        </Text>
        {children}
      </Card.Body>
    </Card.Root>
  );
}

export function AdminSummaryCards({
  counts,
  stats,
}: {
  /** undefined while the user list loads (or failed) */
  counts: UserCounts | undefined;
  stats: AdminBackupStatsApiResponse | undefined;
}) {
  const count = (n: number | undefined) => (n === undefined ? '—' : formatCount(n));
  return (
    <SimpleGrid columns={{ base: 2, md: 4 }} gap={{ base: '3', md: '6' }} mb="6">
      <SummaryCard label="Users" value={count(counts?.users)} />
      <SummaryCard label="Banned" value={count(counts?.banned)} />
      <SummaryCard label="Inactive" value={count(counts?.inactive)} />
      <SummaryCard label="Backups" value={count(stats?.totalCount)}>
        <Text fontSize="sm" color="fg.muted" data-testid="admin-backups-size">
          {stats ? formatBytes(stats.totalSize) : '—'}
        </Text>
      </SummaryCard>
    </SimpleGrid>
  );
}
