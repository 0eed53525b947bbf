import {
  backupStats,
  databaseOptionLabel,
  overPlan,
  dbAddCommands,
  nextBackupText,
  pickDatabase,
  rateLimitDescription,
} from './summary';

const b = (status: string, timestamp = '2025-01-01T00:00:00.000Z') => ({
  status,
  timestamp,
  createdAt: timestamp,
});

describe('backupStats', () => {
  it('is empty without backups', () => {
    expect(backupStats([])).toEqual({ total: 0, failures: 0, running: 0, successRate: 0, lastBackup: null });
  });

  it('counts completed as a whole percent of the finished backups, and failures; last backup is the newest', () => {
    const stats = backupStats([b('in-progress', '2025-02-01T00:00:00.000Z'), b('completed'), b('failed')]);
    expect(stats).toEqual({
      total: 3,
      failures: 1,
      running: 1,
      successRate: 50,
      lastBackup: '2025-02-01T00:00:00.000Z',
    });
    expect(backupStats([b('completed'), b('completed'), b('failed')]).successRate).toBe(67);
  });

  it('does not count a running backup as a miss (it read 50 % with 0 failures during a backup)', () => {
    expect(backupStats([b('in-progress'), b('completed')])).toMatchObject({ successRate: 100, running: 1 });
    expect(backupStats([b('pending')])).toMatchObject({ successRate: null, running: 1, failures: 0 });
  });
});

describe('pickDatabase', () => {
  const dbs = [
    { _id: '1', name: 'alpha', isActive: false, enabled: true },
    { _id: '2', name: 'beta', isActive: true, enabled: true },
  ];
  it("is 'production-db' until databases load, then only a database an agent registered", () => {
    expect(pickDatabase(undefined, null)).toBe('production-db');
    expect(pickDatabase([], null)).toBe('');
    expect(pickDatabase([], 'production-db')).toBe('');
    expect(pickDatabase([dbs[0]!], null)).toBe('');
  });
  it('takes the first active database, or the active choice', () => {
    expect(pickDatabase(dbs, null)).toBe('beta');
    expect(pickDatabase(dbs, 'alpha')).toBe('beta');
    expect(pickDatabase([...dbs, { _id: '3', name: 'gamma', isActive: true, enabled: true }], 'gamma')).toBe(
      'gamma',
    );
  });
  it('labels databases over the plan, and says which ones the user disabled', () => {
    expect(databaseOptionLabel(dbs[0]!)).toBe('alpha (Inactive - Plan Limit Exceeded)');
    expect(databaseOptionLabel(dbs[1]!)).toBe('beta');
    expect(databaseOptionLabel({ name: 'crm', isActive: false, enabled: false })).toBe(
      'crm (Disabled in Settings)',
    );
    expect(overPlan({ isActive: false, enabled: false })).toBe(false);
    expect(overPlan({ isActive: false, enabled: true })).toBe(true);
  });
});

describe('429 text', () => {
  it('adds when the next backup is possible', () => {
    const iso = new Date(2025, 5, 3, 14, 5).toISOString();
    expect(nextBackupText(iso)).toBe('Next backup available at 2:05 PM on Jun 3, 2025.');
    expect(rateLimitDescription('Backup limit reached.', iso)).toBe(
      'Backup limit reached. Next backup available at 2:05 PM on Jun 3, 2025.',
    );
    expect(rateLimitDescription('Backup limit reached.', undefined)).toBe('Backup limit reached.');
    expect(nextBackupText('nope')).toBeNull();
  });
});

describe('dbAddCommands', () => {
  it('shows the agent CLI command for the platforms the agents run on, Linux by default', () => {
    expect(dbAddCommands(undefined)).toEqual(['sudo coffer-agent db add NAME --uri -']);
    expect(dbAddCommands([{ platform: 'linux-x64' }, { platform: 'linux-arm64' }])).toEqual([
      'sudo coffer-agent db add NAME --uri -',
    ]);
    expect(dbAddCommands([{ platform: 'win32-x64' }])).toEqual([
      '& "$env:ProgramFiles\\Coffer\\coffer-agent.exe" db add NAME --uri -',
    ]);
    expect(dbAddCommands([{ platform: 'win32-x64' }, { platform: 'linux-x64' }])).toHaveLength(2);
  });
});
