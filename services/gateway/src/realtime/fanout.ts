import {
  PROGRESS_SUBJECTS,
  type BackupProgressMessage,
  type EventBus,
  type EventSubject,
  type RestoreProgressMessage,
  type VerificationProgressMessage,
} from '@coffer/common';
import type { LiveJobStatus } from '@coffer/contracts';
import { userRoom, type RealtimeServer } from './socket.js';

/** Gateways form one consumer group: each event is taken by one of them and reaches every browser. */
export const FANOUT_GROUP = 'gateway-fanout';

const BACKUP_STATES = {
  'backup.backup.started': 'in-progress',
  'backup.backup.completed': 'completed',
  'backup.backup.failed': 'failed',
} as const satisfies Partial<Record<EventSubject, LiveJobStatus>>;
const RESTORE_STATES = {
  'restore.restore.initiated': 'in-progress',
  'restore.restore.completed': 'completed',
  'restore.restore.failed': 'failed',
} as const satisfies Partial<Record<EventSubject, LiveJobStatus>>;
const subjectsOf = <T extends object>(states: T) => Object.keys(states) as Array<keyof T & EventSubject>;

/**
 * Pushes job state changes (JetStream) and live progress (plain NATS) to the owner's browsers as
 * `backupProgress` / `restoreProgress`, through the Socket.IO Redis adapter so the owner's sockets
 * on every gateway receive them.
 */
export async function startFanout(bus: EventBus, io: RealtimeServer) {
  const emitBackup = (m: BackupProgressMessage) =>
    io.to(userRoom(m.userId)).emit('backupProgress', {
      backupId: m.backupId,
      status: m.status,
      progress: m.progress,
      error: m.error,
    });
  const emitRestore = (m: RestoreProgressMessage) =>
    io.to(userRoom(m.userId)).emit('restoreProgress', {
      restoreId: m.restoreId,
      status: m.status,
      progress: m.progress,
      error: m.error,
    });

  const emitVerification = (m: VerificationProgressMessage) =>
    io.to(userRoom(m.userId)).emit('verificationProgress', {
      verificationId: m.verificationId,
      status: m.status,
      progress: m.progress,
      error: m.error,
    });

  const live = [
    bus.subscribeLive(PROGRESS_SUBJECTS.verification, FANOUT_GROUP, emitVerification),
    bus.subscribeLive(PROGRESS_SUBJECTS.backup, FANOUT_GROUP, emitBackup),
    bus.subscribeLive(PROGRESS_SUBJECTS.restore, FANOUT_GROUP, emitRestore),
  ];
  const states = await Promise.all([
    bus.consume({
      stream: 'BACKUP',
      durable: FANOUT_GROUP,
      subjects: subjectsOf(BACKUP_STATES),
      handler: async ({ subject, data }) => {
        emitBackup({
          userId: data.userId,
          backupId: data.backupId,
          status: BACKUP_STATES[subject],
          error: 'error' in data ? data.error : undefined,
        });
      },
    }),
    bus.consume({
      stream: 'RESTORE',
      durable: FANOUT_GROUP,
      subjects: subjectsOf(RESTORE_STATES),
      handler: async ({ subject, data }) => {
        emitRestore({
          userId: data.userId,
          restoreId: data.restoreId,
          status: RESTORE_STATES[subject],
          error: 'error' in data ? data.error : undefined,
        });
      },
    }),
  ]);
  return {
    async stop() {
      for (const l of live) l.stop();
      await Promise.all(states.map((s) => s.stop()));
    },
  };
}
