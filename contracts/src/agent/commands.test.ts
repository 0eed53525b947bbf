import { isJobCommand, parseCommand } from './commands.js';

const BACKUP_ID = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const RESTORE_ID = 'bbbbbbbbbbbbbbbbbbbbbbbb';

describe('parseCommand', () => {
  it('takes the commands the gateway sends', () => {
    expect(parseCommand({ commandId: 'x', kind: 'backup', jobId: BACKUP_ID, databaseName: 'shop' })).toEqual({
      command: { commandId: 'x', kind: 'backup', jobId: BACKUP_ID, databaseName: 'shop' },
    });
    expect(parseCommand({ commandId: 'x', kind: 'restart' })).toEqual({
      command: { commandId: 'x', kind: 'restart' },
    });
    for (const kind of ['update', 'reset'])
      expect(parseCommand({ commandId: 'c', kind })).toHaveProperty('command');
  });

  it('refuses malformed ones with a reason', () => {
    expect(parseCommand(null)).toEqual({ error: 'Invalid command' });
    expect(parseCommand('backup')).toEqual({ error: 'Invalid command' });
    expect(parseCommand({ kind: 'format-disk' })).toEqual({ error: 'Unknown command kind "format-disk"' });
    expect(parseCommand({})).toEqual({ error: 'Unknown command kind null' });
    expect(parseCommand({ kind: 'backup', jobId: 'nope', databaseName: 'shop' })).toEqual({
      error: 'Invalid backup command: jobId must be a 24-hex id',
    });
    expect(parseCommand({ kind: 'restore', jobId: RESTORE_ID, databaseName: ' ' })).toEqual({
      error: 'Invalid restore command: databaseName is missing',
    });
    expect(parseCommand({ kind: 'restore', jobId: RESTORE_ID, databaseName: 'shop' })).toEqual({
      error: 'Invalid restore command: backupId must be a 24-hex id',
    });
    expect(
      parseCommand({
        kind: 'restore',
        jobId: RESTORE_ID,
        databaseName: 'shop',
        backupId: BACKUP_ID,
        confirm: 'all',
      }),
    ).toEqual({ error: 'Invalid restore command: confirm must be a list' });
  });

  it('takes a restore with its backup and keeps only the confirmations it knows', () => {
    const restore = {
      commandId: 'r',
      kind: 'restore',
      jobId: RESTORE_ID,
      databaseName: 'shop',
      backupId: BACKUP_ID,
    };
    expect(parseCommand(restore)).toEqual({ command: { ...restore, confirm: [] } });
    expect(parseCommand({ ...restore, confirm: ['empty-backup', 'everything', 'empty-backup'] })).toEqual({
      command: { ...restore, confirm: ['empty-backup'] },
    });
  });

  it('takes the restore-anywhere fields, each only in its own shape', () => {
    const restore = {
      commandId: 'c',
      kind: 'restore',
      jobId: RESTORE_ID,
      databaseName: 'shop-copy',
      backupId: BACKUP_ID,
    };
    expect(
      parseCommand({
        ...restore,
        sourceLabel: 'shop',
        collections: ['customers', 'dots.in.name', 'customers'],
        keyFingerprint: '0123456789abcdef0123456789abcdef',
      }),
    ).toEqual({
      command: {
        ...restore,
        confirm: [],
        sourceLabel: 'shop',
        collections: ['customers', 'dots.in.name'],
        keyFingerprint: '0123456789abcdef0123456789abcdef',
      },
    });
    // Absent fields stay absent: the spec's restore.
    expect(parseCommand(restore)).toEqual({ command: { ...restore, confirm: [] } });
    expect(parseCommand({ ...restore, sourceLabel: '../etc' })).toEqual({
      error: 'Invalid restore command: sourceLabel must be a database label',
    });
    for (const collections of [[], 'customers', ['a$b'], ['nul\0'], [''], ['system.users'], [7]])
      expect(parseCommand({ ...restore, collections })).toHaveProperty('error');
    expect(parseCommand({ ...restore, keyFingerprint: 'coffer-key-v1:abc+/=' })).toEqual({
      error: 'Invalid restore command: keyFingerprint is malformed',
    });
  });

  it('tells job commands from the others', () => {
    expect(isJobCommand({ commandId: 'c', kind: 'restore', jobId: RESTORE_ID, databaseName: 'shop' })).toBe(
      true,
    );
    expect(isJobCommand({ commandId: 'c', kind: 'update' })).toBe(false);
  });
});

describe('verify commands', () => {
  const summary = [
    { name: 'orders', documents: 2, digest: 'a'.repeat(64), indexes: ['{"key":{"_id":1},"name":"_id_"}'] },
  ];
  it('carry the backup and the summary recorded when it was made', () => {
    const raw = {
      commandId: 'v',
      kind: 'verify',
      jobId: RESTORE_ID,
      databaseName: 'shop',
      backupId: BACKUP_ID,
      expected: summary,
    };
    const parsed = parseCommand(raw);
    expect(parsed).toEqual({ command: raw });
    expect(isJobCommand((parsed as { command: never }).command)).toBe(true);
  });
  it('are refused without a valid summary', () => {
    const base = { kind: 'verify', jobId: RESTORE_ID, databaseName: 'shop', backupId: BACKUP_ID };
    expect(parseCommand(base)).toEqual({ error: 'Invalid verify command: expected is not a backup summary' });
    expect(parseCommand({ ...base, expected: [{ ...summary[0], digest: 'nope' }] })).toHaveProperty('error');
    expect(parseCommand({ ...base, backupId: 'x', expected: summary })).toEqual({
      error: 'Invalid verify command: backupId must be a 24-hex id',
    });
  });
});
