// Restores started from the dashboard (spec §4 "Restore events"): status, progress and error of
// each, from live events; a finished one stays visible for 5 s, then it is cleared.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { JobStatus, Restore } from '../../api/generated';
import type { ProgressInfo } from '@coffer/contracts';
import { useRealtimeEvent } from '../../realtime/useRealtimeEvent';
import { isFinalStatus } from '../backups/status';

export const RESTORE_PROGRESS_CLEANUP_MS = 5000;

export interface RestoreJob {
  restoreId: string;
  databaseName?: string;
  status: JobStatus;
  progress: ProgressInfo | null;
  error: string | null;
}

export function useRestoreJobs() {
  const [jobs, setJobs] = useState<Record<string, RestoreJob>>({});
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());

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

  /** A restore the user just requested (POST answered 202). */
  const started = useCallback((restore: Restore) => {
    setJobs((j) => ({
      ...j,
      [restore._id]: {
        restoreId: restore._id,
        databaseName: restore.databaseName,
        status: restore.status ?? 'pending',
        progress: j[restore._id]?.progress ?? null,
        error: restore.error ?? null,
      },
    }));
  }, []);

  useRealtimeEvent('restoreProgress', (e) => {
    if (!e?.restoreId) return;
    setJobs((j) => {
      const prev = j[e.restoreId];
      return {
        ...j,
        [e.restoreId]: {
          restoreId: e.restoreId,
          databaseName: prev?.databaseName,
          status: e.status,
          progress: e.progress ?? prev?.progress ?? null,
          error: e.error ?? prev?.error ?? null,
        },
      };
    });
    if (isFinalStatus(e.status)) clearLater(e.restoreId);
  });

  return { jobs: Object.values(jobs), started };
}
