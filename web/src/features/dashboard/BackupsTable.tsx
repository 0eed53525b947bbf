// Recent Backups table (product §2 Dashboard): Database, Timestamp, Size, Status, Actions; running
// backups show their progress in place of timestamp and size. A backup being restored shows the
// restore's progress in a row under it, kept 5 s after the restore ends (issue 10).
import { Fragment } from 'react';
import { Badge, Card, Center, HStack, IconButton, Spinner, Stack, Table, Text } from '@chakra-ui/react';
import type { Backup } from '../../api/generated';
import { formatBackupDate, formatBytes } from '../../lib/format';
import type { ProgressInfo } from '@coffer/contracts';
import { ProgressBlock } from '../backups/ProgressBlock';
import { isActiveStatus } from '../backups/status';
import { StatusBadge } from '../backups/StatusBadge';
import { VerificationBadge } from '../backups/VerificationBadge';
import { CheckIcon, DownloadIcon, RestoreIcon, TrashIcon } from '../shell/icons';
import { stackedTableCss } from '../shell/responsive';
import { LoadMore } from '../lists/LoadMore';
import { restoreCountsText } from './restoreFeedback';
import type { RestoreJob } from './useRestoreJobs';
import { TableHead } from '../shell/TableHead';

interface BackupsTableProps {
  backups: readonly Backup[];
  loading: boolean;
  /** live progress by backup id (kept 2 s after a backup finishes) */
  progress: Record<string, ProgressInfo | null>;
  /** restores by the id of the backup they restore (running, or finished less than 5 s ago) */
  restores?: Record<string, RestoreJob>;
  onDownload: (backup: Backup) => void;
  onRestore: (backup: Backup) => void;
  onDelete: (backup: Backup) => void;
  /** Older backups than those shown, loaded as the user scrolls to the end (useOlderPages). */
  more?: { hasMore: boolean; loading: boolean; failed: boolean; loadMore: () => void };
  /** Verify now (verified backups): the agent restores it into a scratch database and compares. */
  onVerify?: (backup: Backup) => void;
}

export function BackupsTable({
  backups,
  loading,
  progress,
  restores = {},
  onDownload,
  onRestore,
  onDelete,
  more,
  onVerify,
}: BackupsTableProps) {
  return (
    <Card.Root>
      <Card.Header>
        <Card.Title>Recent Backups</Card.Title>
        <Card.Description>Download, restore or delete completed backups.</Card.Description>
      </Card.Header>
      <Card.Body>
        {loading ? (
          <Center py="10">
            <Spinner color="brand.solid" aria-label="Loading backups" />
          </Center>
        ) : backups.length === 0 ? (
          <Center py="10" borderWidth="1px" borderStyle="dashed" rounded="md">
            <Text color="fg.muted" textAlign="center" px="4">
              No backups found. Trigger a backup to protect your data.
            </Text>
          </Center>
        ) : (
          <Table.ScrollArea>
            <Table.Root size="sm" data-testid="backups-table" css={stackedTableCss}>
              <TableHead columns={['Database', 'Timestamp', 'Size', 'Status']} actions="Actions" />
              <Table.Body>
                {backups.map((b) => {
                  const live = progress[b._id];
                  const running = isActiveStatus(b.status) || live !== undefined;
                  const completed = b.status === 'completed';
                  const restore = restores[b._id];
                  return (
                    <Fragment key={b._id}>
                      <Table.Row data-testid="backup-row" data-status={b.status}>
                        <Table.Cell fontWeight="medium" data-label="Database">
                          <HStack gap="2">
                            <Text>{b.databaseName}</Text>
                            {b.type === 'auto' && (
                              <Badge size="xs" variant="outline" colorPalette="gray">
                                Auto
                              </Badge>
                            )}
                          </HStack>
                        </Table.Cell>
                        {running ? (
                          <Table.Cell colSpan={2} minW="56">
                            <ProgressBlock status={b.status} progress={live ?? null} />
                          </Table.Cell>
                        ) : (
                          <>
                            <Table.Cell whiteSpace="nowrap" data-label="Timestamp">
                              {formatBackupDate(b.timestamp || b.createdAt)}
                            </Table.Cell>
                            <Table.Cell whiteSpace="nowrap" data-label="Size">
                              {formatBytes(b.size)}
                            </Table.Cell>
                          </>
                        )}
                        <Table.Cell data-label="Status">
                          <Stack gap="1" align="flex-start">
                            <StatusBadge status={b.status} spinWhilePending />
                            {b.status === 'failed' && b.error && (
                              <Text fontSize="xs" color="fg.error" maxW="40" truncate title={b.error}>
                                {b.error}
                              </Text>
                            )}
                            {b.verification && <VerificationBadge verification={b.verification} />}
                          </Stack>
                        </Table.Cell>
                        <Table.Cell data-label="Actions">
                          <HStack gap="0.5" justify="flex-end">
                            <IconButton
                              aria-label="Download backup"
                              title="Download"
                              size="xs"
                              variant="ghost"
                              disabled={!completed}
                              onClick={() => onDownload(b)}
                            >
                              <DownloadIcon />
                            </IconButton>
                            <IconButton
                              aria-label="Restore backup"
                              title="Restore"
                              size="xs"
                              variant="ghost"
                              disabled={!completed}
                              onClick={() => onRestore(b)}
                            >
                              <RestoreIcon />
                            </IconButton>
                            {onVerify && (
                              <IconButton
                                aria-label="Verify backup now"
                                title="Verify now"
                                size="xs"
                                variant="ghost"
                                disabled={
                                  !completed ||
                                  b.verification?.status === 'pending' ||
                                  b.verification?.status === 'in-progress'
                                }
                                onClick={() => onVerify(b)}
                              >
                                <CheckIcon />
                              </IconButton>
                            )}
                            <IconButton
                              aria-label="Delete backup"
                              title="Delete"
                              size="xs"
                              variant="ghost"
                              colorPalette="red"
                              disabled={!completed}
                              onClick={() => onDelete(b)}
                            >
                              <TrashIcon />
                            </IconButton>
                          </HStack>
                        </Table.Cell>
                      </Table.Row>
                      {restore && <RestoreRow job={restore} />}
                    </Fragment>
                  );
                })}
              </Table.Body>
            </Table.Root>
          </Table.ScrollArea>
        )}
        {!loading && more?.hasMore && (
          <LoadMore what="backups" loading={more.loading} failed={more.failed} onLoadMore={more.loadMore} />
        )}
      </Card.Body>
    </Card.Root>
  );
}

const RESTORE_TITLE: Record<string, string> = {
  pending: 'Restore requested: waiting for the agent',
  'in-progress': 'Restoring this backup',
  completed: 'Restore completed',
  failed: 'Restore failed',
};

/** The restore of the backup above: status, progress and, when it failed, why. */
function RestoreRow({ job }: { job: RestoreJob }) {
  const title = RESTORE_TITLE[job.status] ?? 'Restore';
  return (
    <Table.Row bg="bg.subtle" data-testid="backup-restore" data-status={job.status}>
      <Table.Cell colSpan={5} py="3">
        <Stack gap="2">
          <HStack justify="space-between" wrap="wrap" gap="2">
            <Text fontSize="sm" fontWeight="medium">
              {job.databaseName ? `${title} (${job.databaseName})` : title}
            </Text>
            <StatusBadge status={job.status} />
          </HStack>
          {/* Once it ended, what it did says more than the last progress report. */}
          {job.result ? (
            <Text fontSize="sm" color="fg.muted" data-testid="restore-result">
              {restoreCountsText(job.result)}
            </Text>
          ) : (
            <ProgressBlock status={job.status} progress={job.progress} />
          )}
          {job.error && (
            <Text fontSize="sm" color="fg.error" overflowWrap="anywhere">
              {job.error}
            </Text>
          )}
        </Stack>
      </Table.Cell>
    </Table.Row>
  );
}
