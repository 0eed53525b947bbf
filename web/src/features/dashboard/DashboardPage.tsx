// Dashboard (product §2): database selector, Trigger Backup, summary cards, Backups / Restore History
// tabs, System Status card, Agent Setup Wizard and the restore confirmation dialog.
import { lazy, Suspense, useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  GridItem,
  HStack,
  Link,
  NativeSelect,
  SimpleGrid,
  Stack,
  Tabs,
  Text,
} from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { useAppDispatch } from '../../app/hooks';
import {
  useGetBackupsQuery,
  useGetRestoresQuery,
  useGetProfileQuery,
  useGetUserPlanQuery,
  useGetDatabasesQuery,
  useGetSystemStatusQuery,
  useVerifyBackupMutation,
  type Backup,
  type Database,
} from '../../api/generated';
import { serverMessage } from '../../lib/errors';
import { AgentSetupWizard } from '../agents/AgentSetupWizard';
import { CopyableCommand } from '../agents/CopyableCommand';
import { downloadBackup } from '../backups/download';
import { ProgressBlock } from '../backups/ProgressBlock';
import { RestoreDialog } from '../backups/RestoreDialog';
import { RestoreHistoryPanel } from '../backups/RestoreHistoryPanel';
import { StatusBadge } from '../backups/StatusBadge';
import { useConfirm } from '../shell/ConfirmDialog';
import { SettingsIcon } from '../shell/icons';
import { Page, PageHeader } from '../shell/PageStates';
import { notify } from '../shell/toaster';
import { useOlderBackups } from '../lists/useOlderPages';
import { BackupsTable } from './BackupsTable';
import { databaseOptionLabel, dbAddCommands, overPlan, pickDatabase } from './summary';
import { SummaryCards } from './SummaryCards';
import { SystemStatusCard } from './SystemStatusCard';
import { useBackupJobs } from './useBackupJobs';
import { useRestoreJobs, type RestoreJob } from './useRestoreJobs';
import { scrollingTabListProps } from '../shell/responsive';

const DATABASE_POLL_MS = 5000;
// recharts is most of the chart's weight: fetched when the dashboard first shows it.
const BackupHistoryChart = lazy(() =>
  import('./BackupHistoryChart').then((m) => ({ default: m.BackupHistoryChart })),
);

function DatabaseSelect({
  databases,
  value,
  onChange,
}: {
  databases: readonly Database[] | undefined;
  value: string;
  onChange: (name: string) => void;
}) {
  // Until the list loads the spec's default stands in; after that only databases an agent registered.
  const options = databases ?? [{ _id: '', name: value, isActive: true, enabled: true }];
  return (
    <NativeSelect.Root size="md" w={{ base: 'full', sm: '72' }} disabled={databases?.length === 0}>
      <NativeSelect.Field
        aria-label="Database"
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
        bg="bg"
      >
        {value === '' && (
          <option value="" disabled>
            {options.length === 0 ? 'No databases yet' : 'No active database'}
          </option>
        )}
        {options.map((d) => (
          <option key={d._id || d.name} value={d.name} disabled={!d.isActive}>
            {databaseOptionLabel(d)}
          </option>
        ))}
      </NativeSelect.Field>
      <NativeSelect.Indicator />
    </NativeSelect.Root>
  );
}

/** How to add a database when the agent has registered none (issue 10), with a copy button per command. */
function NoDatabaseNotice() {
  const { data: status } = useGetSystemStatusQuery();
  const commands = dbAddCommands(status?.agents);
  return (
    <Alert.Root status="info" data-testid="no-database">
      <Alert.Indicator />
      <Alert.Content gap="2" minW="0">
        <Alert.Title>No database to back up yet</Alert.Title>
        <Alert.Description>
          <Stack gap="2">
            <Text>
              Databases are added on the server where the agent runs. Run this there, with the label Coffer
              should show in place of NAME; it asks for the connection string, which stays on that server:
            </Text>
            {commands.map((c) => (
              <CopyableCommand key={c} command={c} testId="db-add-command" />
            ))}
            <Text>
              {status && status.agents.length === 0
                ? 'No agent is connected yet: open the Setup Wizard under System Status first.'
                : 'The agent reports the new database within seconds; then Trigger Backup is enabled.'}
            </Text>
          </Stack>
        </Alert.Description>
      </Alert.Content>
    </Alert.Root>
  );
}

/** Restores whose backup has no row in the table (older than the list): shown as cards instead. */
function ActiveRestores({ jobs }: { jobs: RestoreJob[] }) {
  // Events carry only the restore id: the name comes from the restore history when not known here.
  const { data: restores } = useGetRestoresQuery();
  if (jobs.length === 0) return null;
  return (
    <Stack gap="3">
      {jobs.map((job) => {
        const databaseName = job.databaseName ?? restores?.find((r) => r._id === job.restoreId)?.databaseName;
        return (
          <Card.Root key={job.restoreId} size="sm" borderColor="blue.muted" data-testid="active-restore">
            <Card.Body gap="3">
              <HStack justify="space-between" wrap="wrap" gap="2">
                <Text fontWeight="medium">
                  {databaseName ? `Restoring ${databaseName}` : 'Restoring database'}
                </Text>
                <StatusBadge status={job.status} />
              </HStack>
              <ProgressBlock status={job.status} progress={job.progress} />
              {job.error && (
                <Text fontSize="sm" color="fg.error">
                  {job.error}
                </Text>
              )}
            </Card.Body>
          </Card.Root>
        );
      })}
    </Stack>
  );
}

export function DashboardPage() {
  const dispatch = useAppDispatch();
  const backupsQuery = useGetBackupsQuery();
  const { data: profile, error: profileError } = useGetProfileQuery();
  const { data: plan, error: planError } = useGetUserPlanQuery();
  // With no database yet, look again every few seconds: one added with `db add` appears without a reload.
  const [awaitingDatabase, setAwaitingDatabase] = useState(false);
  const { data: databases, error: dbError } = useGetDatabasesQuery(undefined, {
    pollingInterval: awaitingDatabase ? DATABASE_POLL_MS : 0,
  });
  useEffect(() => setAwaitingDatabase(databases?.length === 0), [databases]);
  if (backupsQuery.error) console.error('Failed to fetch backups', backupsQuery.error);
  if (profileError) console.error('Failed to fetch profile', profileError);
  if (planError) console.error('Failed to fetch plan', planError);
  if (dbError) console.error('Failed to fetch databases', dbError);

  const [chosen, setChosen] = useState<string | null>(null);
  const databaseName = pickDatabase(databases, chosen);
  // Only databases the plan leaves out: one the user disabled is no limit exceeded.
  const anyOverPlan = databases?.some(overPlan) ?? false;

  const { busy, progress, trigger, remove } = useBackupJobs();
  const { jobs: restoreJobs, byBackup: restoresByBackup, started: restoreStarted } = useRestoreJobs();
  const [confirm, confirmDialog] = useConfirm();
  const [wizardOpen, setWizardOpen] = useState(false);
  const [restoreTarget, setRestoreTarget] = useState<Backup | null>(null);
  const [tab, setTab] = useState('backups');
  const olderBackups = useOlderBackups(backupsQuery.data);
  const backups = backupsQuery.data ?? [];
  const noDatabase = databases !== undefined && databases.length === 0;
  const unlistedRestores = restoreJobs.filter(
    (j) => !j.backupId || !backups.some((b) => b._id === j.backupId),
  );

  const [verifyBackup] = useVerifyBackupMutation();
  const onVerify = async (backup: Backup) => {
    try {
      await verifyBackup(backup._id).unwrap();
      notify({
        title: 'Verification started',
        description: 'The agent restores this backup into a scratch database and compares it.',
        type: 'success',
      });
    } catch (err) {
      console.error('Failed to start the verification', err);
      notify({
        title: 'Verification not started',
        description: serverMessage(err) ?? undefined,
        type: 'error',
      });
    }
  };

  const onDelete = async (backup: Backup) => {
    const ok = await confirm('Are you sure you want to delete this backup?', {
      title: 'Delete backup',
      confirmLabel: 'Delete',
      destructive: true,
    });
    if (ok) await remove(backup._id);
  };

  return (
    <Page>
      <PageHeader
        title="Dashboard"
        subtitle="Manage and monitor your MongoDB backups"
        actions={
          <Stack direction={{ base: 'column', sm: 'row' }} gap="3" align={{ sm: 'center' }}>
            <DatabaseSelect databases={databases} value={databaseName} onChange={setChosen} />
            <Button
              colorPalette="brand"
              onClick={() => void trigger(databaseName)}
              // The stand-in name shown while the list loads is no database: nothing to back up yet.
              disabled={busy || databases === undefined || databaseName === ''}
              title={
                databaseName !== ''
                  ? undefined
                  : noDatabase
                    ? 'Add a database with coffer-agent db add first'
                    : 'Enable a database in Settings first'
              }
            >
              {busy ? 'Backing up...' : 'Trigger Backup'}
            </Button>
            <Button asChild variant="outline" bg="bg">
              <RouterLink to="/settings">
                <SettingsIcon /> Settings
              </RouterLink>
            </Button>
          </Stack>
        }
      />

      <Stack gap="6">
        {anyOverPlan && (
          <Alert.Root status="warning" data-testid="database-limit-alert">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>Database Limit Exceeded</Alert.Title>
              <Alert.Description>
                {plan
                  ? `Only the first ${plan.dbLimit} database${plan.dbLimit === 1 ? '' : 's'} of your ${plan.name} plan ${plan.dbLimit === 1 ? 'is' : 'are'} active.`
                  : 'Only the databases your plan allows are active.'}{' '}
                The others cannot be backed up or restored. Upgrade your plan or disable a database in{' '}
                <Link asChild color="brand.fg" fontWeight="medium">
                  <RouterLink to="/settings?tab=databases">Settings</RouterLink>
                </Link>
                .
              </Alert.Description>
            </Alert.Content>
          </Alert.Root>
        )}

        {noDatabase && <NoDatabaseNotice />}

        <ActiveRestores jobs={unlistedRestores} />

        <SummaryCards backups={backupsQuery.data} profile={profile} plan={plan} />

        <Suspense fallback={null}>
          <BackupHistoryChart backups={backups} databaseName={databaseName} />
        </Suspense>

        <SimpleGrid columns={{ base: 1, lg: 3 }} gap="6" alignItems="start">
          <GridItem colSpan={{ base: 1, lg: 2 }} minW="0">
            <Tabs.Root
              value={tab}
              onValueChange={(d) => setTab(d.value)}
              variant="enclosed"
              colorPalette="brand"
            >
              <Tabs.List mb="4" {...scrollingTabListProps}>
                <Tabs.Trigger value="backups">Backups</Tabs.Trigger>
                <Tabs.Trigger value="restores">Restore History</Tabs.Trigger>
              </Tabs.List>
              <Tabs.Content value="backups" pt="0">
                <BackupsTable
                  backups={olderBackups.older.length ? [...backups, ...olderBackups.older] : backups}
                  more={olderBackups}
                  loading={backupsQuery.isLoading}
                  progress={progress}
                  restores={restoresByBackup}
                  onDownload={(b) => void dispatch(downloadBackup(b))}
                  onRestore={setRestoreTarget}
                  onDelete={(b) => void onDelete(b)}
                  onVerify={(b) => void onVerify(b)}
                />
              </Tabs.Content>
              <Tabs.Content value="restores" pt="0">
                <RestoreHistoryPanel />
              </Tabs.Content>
            </Tabs.Root>
          </GridItem>
          <Box>
            <SystemStatusCard onOpenWizard={() => setWizardOpen(true)} />
          </Box>
        </SimpleGrid>
      </Stack>

      <AgentSetupWizard open={wizardOpen} onClose={() => setWizardOpen(false)} />
      <RestoreDialog
        backup={restoreTarget}
        databaseName={restoreTarget?.databaseName ?? ''}
        onClose={() => setRestoreTarget(null)}
        onStarted={(restore, message) => {
          restoreStarted(restore);
          notify({ title: 'Restore started', description: message || undefined, type: 'success' });
        }}
      />
      {confirmDialog}
    </Page>
  );
}
