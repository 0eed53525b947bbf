// Restores on the dashboard (product §4 "Restore events"): status, progress and error of each, from
// live events, keyed to the backup being restored so its row shows them; a finished one stays
// visible for 5 s, then it is cleared. When one ends, a toast says how it went (issue 10).
import { useCallback, useEffect, useRef, useState } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { api } from '../../api/cache';
import { useGetRestoresQuery, type JobStatus, type Restore } from '../../api/generated';
import type { ProgressInfo } from '@coffer/contracts';
import { useRealtimeEvent } from '../../realtime/useRealtimeEvent';
import { isFinalStatus } from '../backups/status';
import { notify } from '../shell/toaster';
import { restoreFinishedToast } from './restoreFeedback';

export const RESTORE_PROGRESS_CLEANUP_MS = 5000;

export interface RestoreJob {
  restoreId: string;
  /** the backup being restored, when known (from the request or the restore history) */
  backupId?: string;
  databaseName?: string;
  status: JobStatus;
  progress: ProgressInfo | null;
  error: string | null;
  /** the documents restored and failed, once the finished restore's record is reloaded */
  result?: Pick<Restore, 'documentsRestored' | 'documentsFailed'>;
}

export function useRestoreJobs() {
  const dispatch = useAppDispatch();
  // Events carry only the restore id: the backup and database come from the history when a restore
  // was not started on this page (another tab, or before a reload).
  const { data: history } = useGetRestoresQuery();
  const [jobs, setJobs] = useState<Record<string, RestoreJob>>({});
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  const announced = useRef(new Set<string>());

  useEffect(() => {
    const pending = timers.current;
    return () => {
      pending.forEach(clearTimeout);
      pending.clear();
    };
  }, []);

  const clearLater = useCallback((restoreId: string) => {
    const t = setTimeout(() => {
      timers.current.delete(t);
      setJobs((j) => {
        const next = { ...j };
        delete next[restoreId];
        return next;
      });
    }, RESTORE_PROGRESS_CLEANUP_MS);
    timers.current.add(t);
  }, []);

  /** The toast, once per restore, with its counts and backup from the reloaded record. */
  const announce = useCallback(
    async (restoreId: string, status: 'completed' | 'failed', known: Partial<RestoreJob>) => {
      if (announced.current.has(restoreId)) return;
      announced.current.add(restoreId);
      const res = await dispatch(
        api.endpoints.getRestores.initiate(undefined, { forceRefetch: true, subscribe: false }),
      );
      const restore = res.data?.find((r) => r._id === restoreId);
      if (restore) {
        const result = {
          documentsRestored: restore.documentsRestored,
          documentsFailed: restore.documentsFailed,
        };
        // Only while the row still shows it: a cleared job is not brought back.
        setJobs((j) => (j[restoreId] ? { ...j, [restoreId]: { ...j[restoreId], result } } : j));
      }
      notify(
        restoreFinishedToast({
          status,
          databaseName: known.databaseName ?? restore?.databaseName,
          error: known.error ?? restore?.error,
          restore,
        }),
      );
    },
    [dispatch],
  );

  /** A restore the user just requested (POST answered 202). */
  const started = useCallback((restore: Restore) => {
    setJobs((j) => ({
      ...j,
      [restore._id]: {
        restoreId: restore._id,
        backupId: restore.backupId,
        databaseName: restore.databaseName,
        status: restore.status ?? 'pending',
        progress: j[restore._id]?.progress ?? null,
        error: restore.error ?? null,
      },
    }));
  }, []);

  useRealtimeEvent('restoreProgress', (e) => {
    if (!e?.restoreId) return;
    const listed = history?.find((r) => r._id === e.restoreId);
    const prev = jobs[e.restoreId];
    const job: RestoreJob = {
      restoreId: e.restoreId,
      backupId: prev?.backupId ?? listed?.backupId,
      databaseName: prev?.databaseName ?? listed?.databaseName,
      status: e.status,
      progress: e.progress ?? prev?.progress ?? null,
      error: e.error ?? prev?.error ?? null,
    };
    setJobs((j) => ({ ...j, [e.restoreId]: job }));
    // A restore this page has not heard of yet: reload the history so its backup is known.
    if (!job.backupId) dispatch(api.util.invalidateTags(['Restores']));
    if (isFinalStatus(e.status)) {
      clearLater(e.restoreId);
      void announce(e.restoreId, e.status as 'completed' | 'failed', job);
    }
  });

  const list = Object.values(jobs);
  /** The restore of each backup being restored (or just finished), for its row. */
  const byBackup: Record<string, RestoreJob> = {};
  for (const job of list) if (job.backupId) byBackup[job.backupId] = job;
  return { jobs: list, byBackup, started };
}
