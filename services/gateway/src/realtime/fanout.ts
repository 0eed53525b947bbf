import type { Server } from 'socket.io';
import {
  PROGRESS_SUBJECTS,
  type BackupProgressMessage,
  type EventBus,
  type EventEnvelope,
  type EventSubject,
  type RestoreProgressMessage,
} from '@coffer/common';
import { userRoom } from './socket.js';
import type { ServerToBrowserEvents } from './events.js';

/** Gateways form one consumer group: each event is taken by one of them and reaches every browser. */
export const FANOUT_GROUP = 'gateway-fanout';

const BACKUP_STATES: Partial<Record<EventSubject, string>> = {
  'backup.backup.started': 'in-progress',
  'backup.backup.completed': 'completed',
  'backup.backup.failed': 'failed',
};
const RESTORE_STATES: Partial<Record<EventSubject, string>> = {
  'restore.restore.initiated': 'in-progress',
  'restore.restore.completed': 'completed',
  'restore.restore.failed': 'failed',
};

/**
 * Pushes job state changes (JetStream) and live progress (plain NATS) to the owner's browsers as
 * `backupProgress` / `restoreProgress`, through the Socket.IO Redis adapter so the owner's sockets
 * on every gateway receive them.
 */
export async function startFanout(bus: EventBus, io: Server<Record<string, never>, ServerToBrowserEvents>) {
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

  const live = [
    bus.subscribeLive(PROGRESS_SUBJECTS.backup, FANOUT_GROUP, (m) => emitBackup(m as BackupProgressMessage)),
    bus.subscribeLive(PROGRESS_SUBJECTS.restore, FANOUT_GROUP, (m) =>
      emitRestore(m as RestoreProgressMessage),
    ),
  ];
  const states = await Promise.all([
    bus.consume({
      stream: 'BACKUP',
      durable: FANOUT_GROUP,
      subjects: Object.keys(BACKUP_STATES) as EventSubject[],
      handler: async (e: EventEnvelope) => {
        const d = e.data as { userId: string; backupId: string; error?: string };
        emitBackup({
          userId: d.userId,
          backupId: d.backupId,
          status: BACKUP_STATES[e.subject]!,
          error: d.error,
        });
      },
    }),
    bus.consume({
      stream: 'RESTORE',
      durable: FANOUT_GROUP,
      subjects: Object.keys(RESTORE_STATES) as EventSubject[],
      handler: async (e: EventEnvelope) => {
        const d = e.data as { userId: string; restoreId: string; error?: string };
        emitRestore({
          userId: d.userId,
          restoreId: d.restoreId,
          status: RESTORE_STATES[e.subject]!,
          error: d.error,
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
