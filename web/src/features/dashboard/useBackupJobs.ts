// Running backups on the dashboard (product §4): trigger + poll, live progress events, delete.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useAppDispatch } from '../../app/hooks';
import {
  useDeleteBackupMutation,
  useTriggerBackupMutation,
  type Backup,
  type BackupRateLimitedError,
} from '../../api/generated';
import { httpStatus, serverMessage } from '../../lib/errors';
import type { ProgressInfo } from '@coffer/contracts';
import { useRealtimeEvent } from '../../realtime/useRealtimeEvent';
import { api } from '../../api/cache';
import { isStaleLiveEvent, newerReading } from '../backups/progress';
import { isActiveStatus, isFinalStatus } from '../backups/status';
import { notify } from '../shell/toaster';
import { rateLimitDescription } from './summary';

/** Poll a triggered backup every 2 s, for 30 s at most (product §9). */
export const BACKUP_POLL_MS = 2000;
export const BACKUP_POLL_CAP_MS = 30_000;
/** Progress of a finished backup stays visible this long before the list reloads. */
export const BACKUP_PROGRESS_CLEANUP_MS = 2000;

export function useBackupJobs() {
  const dispatch = useAppDispatch();
  const [triggerBackup] = useTriggerBackupMutation();
  const [deleteBackupCall] = useDeleteBackupMutation();
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<Record<string, ProgressInfo | null>>({});
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  const poll = useRef<ReturnType<typeof setInterval> | null>(null);
  /** Backups whose completed/failed event arrived: later progress readings are stale. */
  const ended = useRef(new Set<string>());
  /** Backups this page did not start (scheduled, or from another tab) whose list was asked for. */
  const fetchedFor = useRef(new Set<string>());

  const later = useCallback((fn: () => void, ms: number) => {
    const t = setTimeout(() => {
      timers.current.delete(t);
      fn();
    }, ms);
    timers.current.add(t);
  }, []);

  useEffect(() => {
    const pending = timers.current;
    return () => {
      pending.forEach(clearTimeout);
      pending.clear();
      if (poll.current) clearInterval(poll.current);
    };
  }, []);

  /** Patches the listed backup; false when the list does not have it. */
  const patchBackup = useCallback(
    (id: string, patch: Partial<Backup>) => {
      let listed = false;
      dispatch(
        api.util.updateQueryData('getBackups', undefined, (draft) => {
          const b = draft.find((x) => x._id === id);
          if (b) Object.assign(b, patch);
          listed = Boolean(b);
        }),
      );
      return listed;
    },
    [dispatch],
  );

  const reload = useCallback(() => {
    dispatch(api.util.invalidateTags(['Backups', 'Profile']));
  }, [dispatch]);

  /** A backup ended (live event or poll, whichever comes first): its progress goes 2 s later. */
  const backupEnded = useCallback(
    (id: string) => {
      if (ended.current.has(id)) return;
      ended.current.add(id);
      later(() => {
        setProgress((p) => {
          const next = { ...p };
          delete next[id];
          return next;
        });
        reload();
      }, BACKUP_PROGRESS_CLEANUP_MS);
    },
    [later, reload],
  );

  useRealtimeEvent('backupProgress', (e) => {
    if (!e?.backupId) return;
    if (isStaleLiveEvent(ended.current.has(e.backupId), e.status)) return;
    const patch: Partial<Backup> = { status: e.status };
    if (e.error) patch.error = e.error;
    // A backup this page did not start (issue 21, walk 5: the scheduler's) is not in the list yet:
    // read the list once, so its row shows while it runs, with the progress kept meanwhile.
    if (!patchBackup(e.backupId, patch) && !fetchedFor.current.has(e.backupId)) {
      fetchedFor.current.add(e.backupId);
      dispatch(api.util.invalidateTags(['Backups']));
    }
    const reading = e.progress;
    if (reading) setProgress((p) => ({ ...p, [e.backupId]: newerReading(p[e.backupId], reading) }));
    if (isFinalStatus(e.status)) backupEnded(e.backupId);
  });

  // A verification (verified backups) ends: the row's badge comes with the backup list.
  useRealtimeEvent('verificationProgress', (e) => {
    if (e?.verificationId && isFinalStatus(e.status)) reload();
  });

  const stopPolling = useCallback(() => {
    if (poll.current) clearInterval(poll.current);
    poll.current = null;
    setBusy(false);
    reload();
  }, [reload]);

  const trigger = useCallback(
    async (databaseName: string) => {
      if (busy) return;
      setBusy(true);
      let backup: Backup;
      try {
        backup = await triggerBackup({ databaseName }).unwrap();
      } catch (err) {
        setBusy(false);
        const message = serverMessage(err);
        if (httpStatus(err) === 429) {
          const body = (err as { data?: Partial<BackupRateLimitedError> }).data;
          notify({
            title: 'Backup Limit Reached',
            description: rateLimitDescription(message, body?.nextBackupAvailable),
            type: 'error',
          });
        } else {
          notify({ title: 'Error', description: message ?? 'Failed to trigger backup', type: 'error' });
        }
        return;
      }
      dispatch(
        api.util.updateQueryData('getBackups', undefined, (draft) => {
          if (!draft.some((b) => b._id === backup._id)) draft.unshift(backup);
        }),
      );
      if (!isActiveStatus(backup.status)) {
        stopPolling();
        return;
      }
      const started = Date.now();
      let inFlight = false;
      if (poll.current) clearInterval(poll.current);
      poll.current = setInterval(async () => {
        if (Date.now() - started >= BACKUP_POLL_CAP_MS) {
          stopPolling();
          return;
        }
        if (inFlight) return;
        inFlight = true;
        try {
          const res = await dispatch(
            api.endpoints.getBackup.initiate(backup._id, { forceRefetch: true, subscribe: false }),
          );
          if (res.data) {
            patchBackup(backup._id, res.data);
            if (!isActiveStatus(res.data.status)) {
              // The live completion may never come (socket down): the progress must not stay.
              if (isFinalStatus(res.data.status)) backupEnded(backup._id);
              stopPolling();
            }
          } else if (res.error) {
            console.error('Backup poll failed', res.error);
          }
        } finally {
          inFlight = false;
        }
      }, BACKUP_POLL_MS);
    },
    [backupEnded, busy, dispatch, patchBackup, stopPolling, triggerBackup],
  );

  const remove = useCallback(
    async (id: string) => {
      try {
        await deleteBackupCall(id).unwrap();
        notify({ title: 'Success', description: 'Backup deleted successfully', type: 'success' });
      } catch (err) {
        console.error('Backup delete failed', err);
        // A refusal the user can act on (running, being restored, under the retention lock until a
        // date) is the server's message; anything else the spec's text.
        const description = httpStatus(err) === 409 ? serverMessage(err) : undefined;
        notify({ title: 'Error', description: description ?? 'Failed to delete backup', type: 'error' });
      }
    },
    [deleteBackupCall],
  );

  return { busy, progress, trigger, remove };
}
