// Summary cards (product §2 Dashboard): Total Backups, Storage Used, Success Rate.
import type { ReactNode } from 'react';
import { Card, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import type { Backup, Plan, Profile } from '../../api/generated';
import { formatBackupDate, formatBytes } from '../../lib/format';
import { storagePercent } from '../../lib/plan';
import { StorageBar } from '../profile/StorageBar';
import { backupStats } from './summary';

function SummaryCard({ label, value, children }: { label: string; value: string; children: ReactNode }) {
  return (
    <Card.Root>
      <Card.Body gap="2">
        <Text fontSize="sm" fontWeight="medium" color="fg.muted">
          {label}
        </Text>
        <Text fontSize="2xl" fontWeight="bold" lineHeight="short" data-testid={`summary-${label}`}>
          {value}
        </Text>
        {children}
      </Card.Body>
    </Card.Root>
  );
}

export function SummaryCards({
  backups,
  profile,
  plan,
}: {
  /** undefined while the list loads: no numbers rather than zeros that are not true */
  backups: readonly Backup[] | undefined;
  profile: Profile | undefined;
  plan: Plan | undefined;
}) {
  const stats = backups && backupStats(backups);
  const used = profile?.storageUsed ?? 0;
  const percent = plan ? storagePercent(used, plan.storageLimit) : 0;
  return (
    <SimpleGrid columns={{ base: 1, md: 3 }} gap="6">
      <SummaryCard label="Total Backups" value={stats ? String(stats.total) : '—'}>
        <Text fontSize="sm" color="fg.muted">
          {!stats
            ? 'Loading...'
            : `Last backup: ${stats.lastBackup ? formatBackupDate(stats.lastBackup) : 'Never'}`}
        </Text>
      </SummaryCard>
      <SummaryCard label="Storage Used" value={profile ? formatBytes(used) : '—'}>
        <Stack gap="2">
          <StorageBar percent={percent} />
          <Text fontSize="sm" color="fg.muted" data-testid="storage-text">
            {profile && plan
              ? `${formatBytes(used)} of ${formatBytes(plan.storageLimit)} (${plan.name} plan)`
              : 'Loading...'}
          </Text>
        </Stack>
      </SummaryCard>
      <SummaryCard
        label="Success Rate"
        value={stats && stats.successRate !== null ? `${stats.successRate}%` : '—'}
      >
        <Text fontSize="sm" color="fg.muted">
          {!stats
            ? 'Loading...'
            : `${stats.failures} failures in total${stats.running ? ` · ${stats.running} running` : ''}`}
        </Text>
      </SummaryCard>
    </SimpleGrid>
  );
}
