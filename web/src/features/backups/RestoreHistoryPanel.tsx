// Restore history (product §2 "Restore history panel", §4, §8, §9): the user's restores, polled every
// 5 s while one is pending or in progress; live progress shown across the row of a running one.
// Details name the backup restored and the documents restored and failed, wrapped, never clipped.
// A restore the agent refused because its backup holds no documents offers 'Restore anyway…': the
// restore dialog again, whose step 3 then asks to confirm exactly that case.
import { Fragment, useCallback, useEffect, useRef, useState } from 'react';
import { Box, Button, Card, Center, HStack, Spinner, Stack, Table, Text } from '@chakra-ui/react';
import { useAppDispatch } from '../../app/hooks';
import { formatBackupDate } from '../../lib/format';
import { isEmptyBackupRefusal, type ProgressInfo } from '@coffer/contracts';
import { useRealtimeEvent } from '../../realtime/useRealtimeEvent';
import { api } from '../../api/cache';
import { useGetRestoresQuery, type Restore } from '../../api/generated';
import { notify } from '../shell/toaster';
import { RestoreDialog } from './RestoreDialog';
import { RefreshIcon } from '../shell/icons';
import { stackedTableCss } from '../shell/responsive';
import {
  restoreCollectionsText,
  restoreCountsText,
  restoredBackupText,
  restoreSourceText,
  restoreTargetText,
} from '../dashboard/restoreFeedback';
import { LoadMore } from '../lists/LoadMore';
import { useOlderRestores } from '../lists/useOlderPages';
import { ProgressBlock } from './ProgressBlock';
import { isActiveStatus, isFinalStatus, restoreDetail } from './status';
import { StatusBadge } from './StatusBadge';
import { TableHead } from '../shell/TableHead';

export const RESTORE_POLL_MS = 5000;
export const RESTORE_HISTORY_CLEANUP_MS = 2000;
export function RestoreHistoryPanel() {
  const dispatch = useAppDispatch();
  const [polling, setPolling] = useState(false);
  const { data, error, isLoading, isFetching, refetch } = useGetRestoresQuery(undefined, {
    pollingInterval: polling ? RESTORE_POLL_MS : 0,
    refetchOnMountOrArgChange: true,
  });
  const [progress, setProgress] = useState<Record<string, ProgressInfo>>({});
  const [retry, setRetry] = useState<Restore | null>(null);
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  const restores = data ?? [];
  const older = useOlderRestores(data);
  const shown = older.older.length ? [...restores, ...older.older] : restores;
  const anyActive = restores.some((r) => isActiveStatus(r.status));
  if (error) console.error('Failed to fetch restore history', error);

  useEffect(() => setPolling(anyActive), [anyActive]);

  useEffect(() => {
    const pending = timers.current;
    return () => {
      pending.forEach(clearTimeout);
      pending.clear();
    };
  }, []);

  const reload = useCallback(() => void refetch(), [refetch]);

  useRealtimeEvent('restoreProgress', (e) => {
    if (!e?.restoreId) return;
    dispatch(
      api.util.updateQueryData('getRestores', undefined, (draft) => {
        const r = draft.find((x) => x._id === e.restoreId);
        if (!r) return;
        r.status = e.status;
        if (e.error) r.error = e.error;
      }),
    );
    const p = e.progress;
    if (p) setProgress((prev) => ({ ...prev, [e.restoreId]: p }));
    if (isFinalStatus(e.status)) {
      const t = setTimeout(() => {
        timers.current.delete(t);
        setProgress((prev) => {
          const next = { ...prev };
          delete next[e.restoreId];
          return next;
        });
        reload();
      }, RESTORE_HISTORY_CLEANUP_MS);
      timers.current.add(t);
    }
  });

  return (
    <Card.Root>
      <Card.Header>
        <HStack justify="space-between" align="flex-start" gap="4">
          <Box>
            <Card.Title>Restore History</Card.Title>
            <Card.Description>Recent database restore operations</Card.Description>
          </Box>
          <Button size="sm" variant="outline" onClick={reload} loading={isFetching && !isLoading}>
            <RefreshIcon /> Refresh
          </Button>
        </HStack>
      </Card.Header>
      <Card.Body>
        {isLoading ? (
          <Center py="10">
            <Spinner color="brand.solid" aria-label="Loading restore history" />
          </Center>
        ) : error && !data ? (
          <Center py="10">
            <Stack align="center" gap="3" textAlign="center">
              <Text color="fg.error" role="alert">
                Failed to fetch restore history
              </Text>
              <Button size="sm" variant="outline" onClick={reload}>
                Try Again
              </Button>
            </Stack>
          </Center>
        ) : restores.length === 0 ? (
          <Center py="10" borderWidth="1px" borderStyle="dashed" rounded="md">
            <Stack align="center" gap="1" textAlign="center" px="4">
              <Text fontWeight="medium">No restore operations found.</Text>
              <Text fontSize="sm" color="fg.muted">
                When you restore a backup from the Backups tab, its history will appear here.
              </Text>
            </Stack>
          </Center>
        ) : (
          <Table.ScrollArea>
            <Table.Root size="sm" data-testid="restore-table" css={stackedTableCss}>
              <TableHead columns={['Database', 'Status', 'Requested', 'Completed', 'Details']} />
              <Table.Body>
                {shown.map((r) => {
                  const live = progress[r._id];
                  const showProgress = r.status === 'in-progress' || live !== undefined;
                  const backupText = restoredBackupText(r);
                  const finished = isFinalStatus(r.status);
                  return (
                    <Fragment key={r._id}>
                      <Table.Row data-testid="restore-row">
                        <Table.Cell
                          fontWeight="medium"
                          data-label="Database"
                          data-testid="restore-target-cell"
                        >
                          <Text>{r.databaseName}</Text>
                          {restoreTargetText(r) && (
                            <Text fontSize="xs" fontWeight="normal" color="fg.muted">
                              {restoreTargetText(r)}
                            </Text>
                          )}
                        </Table.Cell>
                        <Table.Cell data-label="Status">
                          <StatusBadge status={r.status} />
                        </Table.Cell>
                        <Table.Cell whiteSpace="nowrap" data-label="Requested">
                          {formatBackupDate(r.createdAt)}
                        </Table.Cell>
                        <Table.Cell whiteSpace="nowrap" data-label="Completed">
                          {r.completedAt ? formatBackupDate(r.completedAt) : '—'}
                        </Table.Cell>
                        <Table.Cell
                          data-label="Details"
                          whiteSpace="normal"
                          minW="48"
                          data-testid="restore-details"
                        >
                          <Stack gap="0.5" fontSize="sm">
                            <Text
                              color={r.error ? 'fg.error' : 'fg.muted'}
                              title={r.error ?? undefined}
                              overflowWrap="anywhere"
                            >
                              {restoreDetail(r)}
                            </Text>
                            {restoreSourceText(r) && (
                              <Text data-testid="restore-source">{restoreSourceText(r)}</Text>
                            )}
                            {backupText && <Text>{backupText}</Text>}
                            {restoreCollectionsText(r) && (
                              <Text color="fg.muted" overflowWrap="anywhere">
                                {restoreCollectionsText(r)}
                              </Text>
                            )}
                            {finished && <Text color="fg.muted">{restoreCountsText(r)}</Text>}
                            {r.status === 'failed' && isEmptyBackupRefusal(r.error) && (
                              <Button
                                size="xs"
                                variant="outline"
                                colorPalette="red"
                                alignSelf="flex-start"
                                mt="1"
                                onClick={() => setRetry(r)}
                              >
                                Restore anyway…
                              </Button>
                            )}
                          </Stack>
                        </Table.Cell>
                      </Table.Row>
                      {showProgress && (
                        <Table.Row bg="bg.subtle">
                          <Table.Cell colSpan={5} py="3">
                            <ProgressBlock status={r.status} progress={live ?? null} />
                          </Table.Cell>
                        </Table.Row>
                      )}
                    </Fragment>
                  );
                })}
              </Table.Body>
            </Table.Root>
          </Table.ScrollArea>
        )}
        {!isLoading && older.hasMore && (
          <LoadMore
            what="restores"
            loading={older.loading}
            failed={older.failed}
            onLoadMore={older.loadMore}
          />
        )}
      </Card.Body>
      <RestoreDialog
        backup={
          retry && {
            _id: retry.backupId,
            databaseName: retry.sourceDatabaseName ?? retry.databaseName,
            timestamp: retry.backupTimestamp ?? '',
            createdAt: retry.backupTimestamp ?? retry.createdAt,
          }
        }
        databaseName={retry ? (retry.sourceDatabaseName ?? retry.databaseName) : ''}
        emptyBackup
        onClose={() => setRetry(null)}
        onStarted={(_restore, message) => {
          notify({ title: 'Restore started', description: message || undefined, type: 'success' });
          reload();
        }}
      />
    </Card.Root>
  );
}
