import type { GfsCounts } from '@coffer/contracts';
import type { BackupRecord } from '../store/types';
import { gfsVerdicts, periodKey, type GfsPolicy } from './gfs';

const HOUR = 3_600_000;
const NONE: GfsCounts = { hourly: 0, daily: 0, weekly: 0, monthly: 0, yearly: 0 };
const policy = (counts: Partial<GfsCounts>, failedKeepHours = 72): GfsPolicy => ({
  counts: { ...NONE, ...counts },
  failedKeepHours,
});

let seq = 0;
/** A finished backup of `db` that completed at `at` (ids sort by creation, as ObjectIds do). */
function backup(at: string, extra: Partial<BackupRecord> = {}): BackupRecord {
  const t = new Date(at);
  seq++;
  return {
    id: seq.toString(16).padStart(24, '0'),
    userId: 'u',
    databaseName: 'shop',
    agentId: 'a',
    createdAt: new Date(t.getTime() - 60_000),
    commandId: 'c',
    commandSentAt: t,
    startedAt: t,
    completedAt: t,
    error: null,
    absentSince: null,
    status: 'completed',
    type: 'auto',
    size: 10,
    keyFingerprint: 'fp',
    scheduleSlot: `s${seq}`,
    deletingSince: null,
    deleteReason: null,
    lockedUntil: null,
    ...extra,
  };
}

const kept = (verdicts: ReturnType<typeof gfsVerdicts>, list: BackupRecord[]) =>
  list
    .filter((b) => verdicts.find((v) => v.backup.id === b.id)!.keep)
    .map((b) => b.completedAt!.toISOString());

/** Every `stepHours` from `from` (inclusive) to `to` (exclusive). */
function series(from: string, to: string, stepHours: number, extra: Partial<BackupRecord> = {}) {
  const out: BackupRecord[] = [];
  for (let t = new Date(from).getTime(); t < new Date(to).getTime(); t += stepHours * HOUR) {
    out.push(backup(new Date(t).toISOString(), extra));
  }
  return out;
}

describe('GFS periods', () => {
  it('files moments under UTC calendar periods, weeks from Monday', () => {
    // 2024-12-30 is a Monday: the week holding New Year's Day starts in the old year.
    expect(periodKey('weekly', new Date('2025-01-01T10:00:00Z'))).toBe('2024-12-30');
    expect(periodKey('weekly', new Date('2024-12-29T23:59:59Z'))).toBe('2024-12-23'); // Sunday
    expect(periodKey('weekly', new Date('2024-12-30T00:00:00Z'))).toBe('2024-12-30');
    expect(periodKey('monthly', new Date('2024-02-29T23:59:59Z'))).toBe('2024-02');
    expect(periodKey('monthly', new Date('2024-03-01T00:00:00Z'))).toBe('2024-03');
    expect(periodKey('yearly', new Date('2024-12-31T23:59:59Z'))).toBe('2024');
    expect(periodKey('daily', new Date('2024-12-31T23:59:59Z'))).toBe('2024-12-31');
    expect(periodKey('hourly', new Date('2024-12-31T23:59:59Z'))).toBe('2024-12-31T23');
  });
});

describe('GFS selection', () => {
  const now = new Date('2025-03-10T12:00:00Z');

  it('keeps the newest backup of each of the last N days, and nothing else', () => {
    const list = series('2025-03-01T00:00:00Z', '2025-03-10T12:00:00Z', 6); // 4 a day
    const v = gfsVerdicts(list, policy({ daily: 3 }), now);
    expect(kept(v, list)).toEqual([
      '2025-03-08T18:00:00.000Z',
      '2025-03-09T18:00:00.000Z',
      '2025-03-10T06:00:00.000Z',
    ]);
    const gone = v.filter((x) => !x.keep);
    expect(gone).toHaveLength(list.length - 3);
    expect(gone[0]!.rule).toBe(
      'GFS retention (keep 0 hourly, 3 daily, 0 weekly, 0 monthly, 0 yearly): not the newest backup of a kept period',
    );
  });

  it('counts periods that have a backup, not calendar periods: a gap does not use up N', () => {
    const list = [
      backup('2025-03-10T01:00:00Z'),
      backup('2025-03-01T01:00:00Z'),
      backup('2025-02-20T01:00:00Z'),
    ];
    expect(kept(gfsVerdicts(list, policy({ daily: 2 }), now), list)).toEqual([
      '2025-03-10T01:00:00.000Z',
      '2025-03-01T01:00:00.000Z',
    ]);
  });

  it('keeps everything when there are fewer backups than N', () => {
    const list = series('2025-03-08T00:00:00Z', '2025-03-10T00:00:00Z', 24);
    expect(gfsVerdicts(list, policy({ daily: 30 }), now).every((v) => v.keep)).toBe(true);
  });

  it('keeps one per week across a year edge, with weeks starting on Monday', () => {
    // Daily backups from Wed 2024-12-18 to Tue 2025-01-07.
    const list = series('2024-12-18T09:00:00Z', '2025-01-08T00:00:00Z', 24);
    const v = gfsVerdicts(list, policy({ weekly: 3 }), new Date('2025-01-08T00:00:00Z'));
    // Week of Mon 01-06: Tue 01-07; week of Mon 12-30 (holds New Year): Sun 01-05; week of 12-23: Sun 12-29.
    expect(kept(v, list)).toEqual([
      '2024-12-29T09:00:00.000Z',
      '2025-01-05T09:00:00.000Z',
      '2025-01-07T09:00:00.000Z',
    ]);
  });

  it('keeps the last backup of each month and year at their edges', () => {
    const list = [
      backup('2023-12-31T23:59:00Z'),
      backup('2024-01-01T00:01:00Z'),
      backup('2024-02-29T23:00:00Z'),
      backup('2024-03-01T00:30:00Z'),
      backup('2024-12-31T22:00:00Z'),
      backup('2025-01-15T00:00:00Z'),
    ];
    const at = new Date('2025-02-01T00:00:00Z');
    expect(kept(gfsVerdicts(list, policy({ monthly: 3 }), at), list)).toEqual([
      '2024-03-01T00:30:00.000Z',
      '2024-12-31T22:00:00.000Z',
      '2025-01-15T00:00:00.000Z',
    ]);
    expect(kept(gfsVerdicts(list, policy({ yearly: 3 }), at), list)).toEqual([
      '2023-12-31T23:59:00.000Z',
      '2024-12-31T22:00:00.000Z',
      '2025-01-15T00:00:00.000Z',
    ]);
  });

  it('keeps a backup once when several periods keep it, with every reason', () => {
    const list = series('2025-03-10T08:00:00Z', '2025-03-10T12:00:00Z', 1);
    const v = gfsVerdicts(list, policy({ hourly: 2, daily: 1, yearly: 1 }), now);
    expect(v.map((x) => [x.backup.completedAt!.toISOString(), x.reasons.sort()])).toEqual([
      ['2025-03-10T11:00:00.000Z', ['daily', 'hourly', 'newest', 'yearly']],
      ['2025-03-10T10:00:00.000Z', ['hourly']],
      ['2025-03-10T09:00:00.000Z', []],
      ['2025-03-10T08:00:00.000Z', []],
    ]);
  });

  it('never deletes the newest completed backup of a database, however old, for each database', () => {
    const shop = backup('2020-01-01T00:00:00Z');
    const crm = [
      backup('2021-01-01T00:00:00Z', { databaseName: 'crm' }),
      backup('2021-01-02T00:00:00Z', { databaseName: 'crm' }),
    ];
    const v = gfsVerdicts([shop, ...crm], policy({ hourly: 0, daily: 0 }), now);
    expect(v.filter((x) => x.keep).map((x) => [x.backup.databaseName, x.reasons])).toEqual([
      ['crm', ['newest']],
      ['shop', ['newest']],
    ]);
  });

  it('counts no failed backup for a period, keeps failures for a while, and never makes one the newest', () => {
    const list = [
      backup('2025-03-10T11:00:00Z', { status: 'failed', error: 'disk full' }),
      backup('2025-03-09T11:00:00Z'),
      backup('2025-03-06T11:00:00Z', { status: 'failed', error: 'agent gone' }),
      backup('2025-03-05T11:00:00Z'),
    ];
    const v = gfsVerdicts(list, policy({ daily: 1 }, 72), now);
    expect(v.map((x) => [x.backup.completedAt!.toISOString(), x.keep, x.reasons, x.rule])).toEqual([
      ['2025-03-10T11:00:00.000Z', true, ['recent-failure'], undefined],
      ['2025-03-09T11:00:00.000Z', true, ['daily', 'newest'], undefined],
      ['2025-03-06T11:00:00.000Z', false, [], 'GFS retention: failed backups are kept 3 days'],
      ['2025-03-05T11:00:00.000Z', false, [], expect.stringContaining('not the newest backup')],
    ]);
  });

  it('keeps backups under the retention lock until their date, then judges them like any other', () => {
    const locked = backup('2025-03-01T11:00:00Z', { lockedUntil: new Date('2025-03-11T00:00:00Z') });
    const failedLocked = backup('2025-03-01T12:00:00Z', {
      status: 'failed',
      lockedUntil: new Date('2025-03-11T00:00:00Z'),
    });
    const newest = backup('2025-03-10T11:00:00Z');
    const list = [locked, failedLocked, newest];
    expect(kept(gfsVerdicts(list, policy({ daily: 1 }), now), list)).toEqual([
      '2025-03-01T11:00:00.000Z',
      '2025-03-01T12:00:00.000Z',
      '2025-03-10T11:00:00.000Z',
    ]);
    expect(gfsVerdicts(list, policy({ daily: 1 }), now).find((v) => v.backup === locked)!.reasons).toEqual([
      'locked',
    ]);
    const after = new Date('2025-03-11T00:00:00Z');
    expect(kept(gfsVerdicts(list, policy({ daily: 1 }), after), list)).toEqual(['2025-03-10T11:00:00.000Z']);
  });

  it('does not judge pending, running or deleting backups', () => {
    const list = [
      backup('2025-03-10T11:00:00Z'),
      backup('2025-03-01T11:00:00Z', { status: 'pending', completedAt: null }),
      backup('2025-03-01T12:00:00Z', { status: 'in-progress', completedAt: null }),
      backup('2025-03-01T13:00:00Z', { status: 'deleting' }),
    ];
    expect(gfsVerdicts(list, policy({ daily: 1 }), now).map((v) => v.backup.id)).toEqual([list[0]!.id]);
  });

  it('is idempotent: what it keeps, judged again, is all kept', () => {
    const list = [
      ...series('2024-01-01T03:00:00Z', '2025-03-10T12:00:00Z', 7),
      ...series('2025-02-01T00:00:00Z', '2025-03-10T00:00:00Z', 30, { status: 'failed' }),
    ];
    const p = policy({ hourly: 5, daily: 6, weekly: 5, monthly: 4, yearly: 2 });
    const first = gfsVerdicts(list, p, now);
    const survivors = first.filter((v) => v.keep).map((v) => v.backup);
    expect(survivors.length).toBeLessThan(list.length);
    expect(gfsVerdicts(survivors, p, now).every((v) => v.keep)).toBe(true);
  });
});
