import { backupLocked, type Logger, type RetentionLockChange } from '@coffer/common';
import type { OrchestratorEvents } from '../events.js';
import type { BackupRecord, RetentionLockRecord, SettingsStore } from '../store/types.js';
import type { RetentionInForce } from './retention-in-force.js';
import { DEFAULT_SETTINGS, HOUR_MS } from './rules.js';

/** What the account's lock is at a moment: on, and when a requested turn-off takes effect. */
export interface RetentionLockState {
  enabled: boolean;
  /** Set while a turn-off is pending; the lock stays on until then. */
  offAt: Date | null;
}

const OFF: RetentionLockRecord = { enabled: false, offAt: null };

/** The saved lock as it stands at `now`: a turn-off whose date has passed is in effect. */
export function lockStateAt(saved: RetentionLockRecord | null, now: Date): RetentionLockState {
  if (!saved?.enabled) return { enabled: false, offAt: null };
  if (saved.offAt && saved.offAt <= now) return { enabled: false, offAt: null };
  return { enabled: true, offAt: saved.offAt };
}

/**
 * Whether a finished backup is protected at `now`: made under the lock, date not reached. A failed
 * one too: its upload may have reached storage before it failed, and storage keeps that file
 * locked (on S3 nobody can remove it), so the record stays with it. Pending and running jobs are
 * not yet backups (a deleted account's are dropped; their uploads with them).
 */
export const lockHolds = (b: Pick<BackupRecord, 'status' | 'lockedUntil'>, now: Date): boolean =>
  (b.status === 'completed' || b.status === 'failed') && !!b.lockedUntil && b.lockedUntil > now;

/** Refuses (409 BACKUP_LOCKED, naming the date) to delete a backup the lock still protects. */
export function assertDeletable(b: Pick<BackupRecord, 'status' | 'lockedUntil'>, now: Date): void {
  if (lockHolds(b, now)) throw backupLocked(b.lockedUntil!);
}

/**
 * The account's retention lock (docs/architecture.md, "Retention lock"). Turning it on is
 * immediate; turning it off takes effect `turnOffDelayMs` later (the mail announcing it lets the
 * owner cancel a turn-off they did not ask for). Every backup made while it is on records its own
 * date (createdAt + the retention in force), so no later change of settings or of the lock
 * shortens it.
 */
export function retentionLock(deps: {
  store: Pick<SettingsStore, 'lock' | 'saveLock' | 'lockTurnOffsDue'>;
  retentionOf: RetentionInForce;
  events: OrchestratorEvents;
  turnOffDelayMs: number;
  now: () => Date;
  log: Pick<Logger, 'info' | 'warn'>;
}) {
  const { store, events, now } = deps;

  const announce = (userId: string, change: RetentionLockChange, effectiveAt?: Date, id?: string) =>
    events.publish(
      'settings.retention_lock.updated',
      { userId, change, ...(effectiveAt ? { effectiveAt: effectiveAt.toISOString() } : {}) },
      id ? { id } : undefined,
    );

  /**
   * A turn-off whose date has passed: saved as off (if nobody cancelled it meanwhile) and
   * announced once (its message id names the date, so a second replica's publish is a duplicate).
   */
  async function settle(userId: string, offAt: Date): Promise<void> {
    const saved = await store.saveLock(userId, OFF, { enabled: true, offAt }, DEFAULT_SETTINGS);
    if (!saved) return;
    await announce(userId, 'disabled', undefined, `retention-lock-off:${userId}:${offAt.toISOString()}`);
    deps.log.info({ userId }, 'retention lock turned off after its delay');
  }

  async function current(
    userId: string,
  ): Promise<{ saved: RetentionLockRecord | null; state: RetentionLockState }> {
    let saved = await store.lock(userId);
    if (saved?.enabled && saved.offAt && saved.offAt <= now()) {
      await settle(userId, saved.offAt);
      saved = await store.lock(userId);
    }
    return { saved, state: lockStateAt(saved, now()) };
  }

  /** On at once; with a turn-off pending, cancels it. Repeating it changes nothing. */
  async function enable(userId: string): Promise<RetentionLockState> {
    const { saved, state } = await current(userId);
    if (state.enabled && !state.offAt) return state;
    const next = { enabled: true, offAt: null };
    // Changed meanwhile (another tab, a turn-off coming due): decide again from what is saved.
    if (!(await store.saveLock(userId, next, saved, DEFAULT_SETTINGS))) return enable(userId);
    await announce(userId, state.enabled ? 'disable_cancelled' : 'enabled');
    return next;
  }

  /** Asks for the lock to go off after the delay; a pending request keeps its original date. */
  async function requestDisable(userId: string): Promise<RetentionLockState> {
    const { saved, state } = await current(userId);
    if (!state.enabled || state.offAt) return state;
    const next = { enabled: true, offAt: new Date(now().getTime() + deps.turnOffDelayMs) };
    if (!(await store.saveLock(userId, next, saved, DEFAULT_SETTINGS))) return requestDisable(userId);
    await announce(userId, 'disable_requested', next.offAt);
    return next;
  }

  return {
    enable,
    requestDisable,
    offDelayMs: deps.turnOffDelayMs,

    async get(userId: string): Promise<RetentionLockState> {
      return (await current(userId)).state;
    },

    /** The lock date of a backup the user starts now, or null when the lock is off. */
    async lockDateFor(userId: string, createdAt: Date): Promise<Date | null> {
      if (!(await current(userId)).state.enabled) return null;
      const hours = await deps.retentionOf(userId);
      return hours === null ? null : new Date(createdAt.getTime() + hours * HOUR_MS);
    },

    /** Turn-offs whose delay ran out, for the retention timer; returns how many took effect. */
    async settleDue(): Promise<number> {
      const due = await store.lockTurnOffsDue(now());
      for (const d of due) await settle(d.userId, d.offAt);
      return due.length;
    },
  };
}
export type RetentionLock = ReturnType<typeof retentionLock>;
