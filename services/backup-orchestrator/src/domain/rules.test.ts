import {
  activeDatabaseIds,
  agentStatus,
  autoSlotKey,
  backupInterval,
  clipError,
  daysText,
  hoursText,
  rateLimitMessage,
  scheduleSlot,
} from './rules';

const at = (iso: string) => new Date(iso);

describe('active databases', () => {
  const dbs = [
    { id: 'c', enabled: true, createdAt: at('2025-01-03T00:00:00Z') },
    { id: 'a', enabled: true, createdAt: at('2025-01-01T00:00:00Z') },
    { id: 'b', enabled: false, createdAt: at('2025-01-02T00:00:00Z') },
    { id: 'd', enabled: true, createdAt: at('2025-01-04T00:00:00Z') },
  ];

  it('takes the first dbLimit enabled databases by creation time', () => {
    expect([...activeDatabaseIds(dbs, 2)]).toEqual(['a', 'c']);
  });

  it('never counts disabled databases, and a limit of 0 activates none', () => {
    expect(activeDatabaseIds(dbs, 10).has('b')).toBe(false);
    expect(activeDatabaseIds(dbs, 0).size).toBe(0);
  });

  it('breaks creation-time ties by id so the answer is stable', () => {
    const same = at('2025-01-01T00:00:00Z');
    const tie = [
      { id: 'z', enabled: true, createdAt: same },
      { id: 'y', enabled: true, createdAt: same },
    ];
    expect([...activeDatabaseIds(tie, 1)]).toEqual(['y']);
  });
});

describe('the plan interval between backups', () => {
  const now = at('2025-06-02T10:00:00Z');

  it('allows a first backup', () => {
    expect(backupInterval(undefined, 24, now)).toEqual({ allowed: true });
  });

  it('refuses within the interval and says when the next one may start', () => {
    expect(backupInterval(at('2025-06-02T08:30:00Z'), 24, now)).toEqual({
      allowed: false,
      nextBackupAvailable: at('2025-06-03T08:30:00Z'),
    });
  });

  it('allows exactly at the boundary and after', () => {
    expect(backupInterval(at('2025-06-01T10:00:00Z'), 24, now).allowed).toBe(true);
    expect(backupInterval(at('2025-06-02T08:59:59Z'), 1, now).allowed).toBe(true);
  });

  it('names the interval in the message', () => {
    expect(rateLimitMessage(1)).toBe(
      'Backup limit reached for your plan. Your plan allows one backup every 1 hour.',
    );
    expect(rateLimitMessage(24)).toBe(
      'Backup limit reached for your plan. Your plan allows one backup every 24 hours.',
    );
  });
});

describe('agent status', () => {
  const now = at('2025-06-02T10:00:00Z');
  const seen = (secondsAgo: number, connected = true) => ({
    connected,
    lastSeen: new Date(now.getTime() - secondsAgo * 1000),
  });

  it.each([
    [seen(0), 'active'],
    [seen(60), 'active'],
    [seen(61), 'inactive'],
    [seen(300), 'inactive'],
    [seen(301), 'offline'],
    [seen(0, false), 'offline'],
  ])('%j is %s', (agent, status) => {
    expect(agentStatus(agent, now, 60_000)).toBe(status);
  });
});

describe('schedule slots', () => {
  it('numbers slots as floor(now / frequency) with their bounds', () => {
    const s = scheduleSlot(at('2025-06-02T10:59:59.999Z'), 1);
    expect(s.slot).toBe(Math.floor(at('2025-06-02T10:00:00Z').getTime() / 3_600_000));
    expect(s.start).toEqual(at('2025-06-02T10:00:00Z'));
    expect(s.end).toEqual(at('2025-06-02T11:00:00Z'));
    expect(scheduleSlot(at('2025-06-02T11:00:00Z'), 1).slot).toBe(s.slot + 1);
  });

  it('daily slots start at midnight UTC', () => {
    expect(scheduleSlot(at('2025-06-02T23:00:00Z'), 24).start).toEqual(at('2025-06-02T00:00:00Z'));
  });

  it('scales with the injectable hour length', () => {
    const s = scheduleSlot(new Date(10_500), 1, 2_000);
    expect(s).toEqual({ slot: 5, start: new Date(10_000), end: new Date(12_000) });
  });

  it('keeps slots of different frequencies apart in the unique key', () => {
    expect(autoSlotKey(1, 7)).not.toBe(autoSlotKey(24, 7));
  });
});

describe('texts', () => {
  it('writes hours and days in words', () => {
    expect(hoursText(1)).toBe('1 hour');
    expect(daysText(168)).toBe('7 days');
    expect(daysText(24)).toBe('1 day');
  });

  it('bounds agent errors at 2,000 characters', () => {
    expect(clipError('x'.repeat(5000))).toHaveLength(2000);
    expect(clipError('short')).toBe('short');
  });
});
