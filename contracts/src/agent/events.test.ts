import { LIMITS } from '../limits.js';
import { agentEventSchemas, PROGRESS_EVENTS, REPORT_EVENTS } from './events.js';

const BACKUP_ID = '64b7f0c2a1b2c3d4e5f60718';
const RESTORE_ID = '64b7f0c2a1b2c3d4e5f60719';
const progress = { current: 52_000, total: 80_000, percentage: 65, collection: 'customers' };
const accepts = (event: keyof typeof agentEventSchemas, payload: unknown) =>
  agentEventSchemas[event].safeParse(payload).success;

describe('agent events', () => {
  it('accept what the agent reports', () => {
    expect(accepts('heartbeat', { runningJobs: [BACKUP_ID], databases: ['shop'] })).toBe(true);
    expect(accepts('backup:progress', { backupId: BACKUP_ID, progress })).toBe(true);
    expect(
      accepts('backup:progress', { backupId: BACKUP_ID, progress: { ...progress, collection: '' } }),
    ).toBe(true);
    expect(accepts('backup:failed', { backupId: BACKUP_ID, error: 'Agent stopped' })).toBe(true);
    expect(accepts('restore:started', { restoreId: RESTORE_ID })).toBe(true);
    expect(accepts('restore:progress', { restoreId: RESTORE_ID, progress })).toBe(true);
    expect(
      accepts('restore:completed', { restoreId: RESTORE_ID, documentsRestored: 80_000, documentsFailed: 0 }),
    ).toBe(true);
    expect(accepts('restore:failed', { restoreId: RESTORE_ID, error: 'Wrong key' })).toBe(true);
  });

  it.each([
    ['a job id that is not an object id', 'backup:failed', { backupId: 'b1', error: 'x' }],
    ['no error', 'restore:failed', { restoreId: RESTORE_ID }],
    [
      'a percentage over 100',
      'backup:progress',
      { backupId: BACKUP_ID, progress: { ...progress, percentage: 101 } },
    ],
    [
      'negative documents',
      'restore:progress',
      { restoreId: RESTORE_ID, progress: { ...progress, current: -1 } },
    ],
    [
      'a collection name over the limit',
      'backup:progress',
      { backupId: BACKUP_ID, progress: { ...progress, collection: 'c'.repeat(LIMITS.collectionName + 1) } },
    ],
    [
      'a fractional document count',
      'restore:completed',
      { restoreId: RESTORE_ID, documentsRestored: 1.5, documentsFailed: 0 },
    ],
    [
      'too many running jobs',
      'heartbeat',
      { runningJobs: Array(LIMITS.runningJobs + 1).fill(BACKUP_ID), databases: [] },
    ],
    ['a database that is not a label', 'heartbeat', { runningJobs: [], databases: ['a/b'] }],
  ] as const)('refuse %s', (_what, event, payload) => {
    expect(accepts(event, payload)).toBe(false);
  });

  it('clip a long error to what the server keeps instead of losing it', () => {
    const parsed = agentEventSchemas['backup:failed'].parse({ backupId: BACKUP_ID, error: 'x'.repeat(4000) });
    expect(parsed.error).toHaveLength(LIMITS.errorText);
    expect(parsed.error.endsWith('…')).toBe(true);
  });

  it('progress is fire-and-forget; job reports are acknowledged', () => {
    expect([...PROGRESS_EVENTS]).toEqual(['backup:progress', 'restore:progress', 'verify:progress']);
    expect(REPORT_EVENTS).not.toContain('backup:progress');
  });
});

describe('agent:update', () => {
  const update = agentEventSchemas['agent:update'];

  it('accepts the outcomes the agent reports after an update', () => {
    expect(update.parse({ status: 'updated', fromVersion: '1.2.0', toVersion: '1.3.0' })).toEqual({
      status: 'updated',
      fromVersion: '1.2.0',
      toVersion: '1.3.0',
    });
    expect(
      update.safeParse({
        status: 'failed',
        fromVersion: '1.2.0',
        toVersion: '1.2.0',
        error: 'permission denied',
      }).success,
    ).toBe(true);
  });

  it.each([
    ['an unknown status', { status: 'done', fromVersion: '1.2.0', toVersion: '1.3.0' }],
    ['no versions', { status: 'updated' }],
    [
      'a version over the limit',
      { status: 'updated', fromVersion: '1.2.0', toVersion: '1'.repeat(LIMITS.version + 1) },
    ],
    ['no object at all', 'updated'],
  ])('refuses %s', (_what, payload) => {
    expect(update.safeParse(payload).success).toBe(false);
  });
});

describe('agent:leaving', () => {
  const leaving = agentEventSchemas['agent:leaving'];

  it('accepts a stop and a restart, and the bare event of a plain stop', () => {
    expect(leaving.parse({})).toEqual({});
    expect(leaving.parse({ restarting: true })).toEqual({ restarting: true });
  });

  it('refuses a payload that is not an object or a restarting flag that is not a boolean', () => {
    expect(leaving.safeParse(undefined).success).toBe(false);
    expect(leaving.safeParse({ restarting: 'yes' }).success).toBe(false);
  });
});
