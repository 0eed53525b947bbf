import type { EventMap } from '@coffer/common';
import { ACTION_TABLE, AUDIT_ACTIONS, actorLabel, auditedSubjects, entriesFor } from './actions';

const USER = '64b7f0c2a1b2c3d4e5f60718';

describe('audit action table', () => {
  it('maps the four account events to their spec actions, owned by and about the user', () => {
    expect(entriesFor('auth.user.password_changed', { userId: USER })).toEqual([
      {
        userId: USER,
        action: 'PASSWORD_CHANGED',
        entity: 'User',
        entityId: USER,
        actor: 'User',
        details: {},
      },
    ]);
    expect(entriesFor('auth.user.api_key_regenerated', { userId: USER })[0]).toMatchObject({
      action: 'API_KEY_REGENERATED',
      entity: 'User',
      actor: 'User',
    });
    expect(
      entriesFor('auth.user.email_changed', { userId: USER, email: 'new@example.com' })[0],
    ).toMatchObject({
      action: 'EMAIL_CHANGED',
      details: { value: 'new@example.com' },
    });
  });

  it('records the plan name as the PLAN_CHANGED value', () => {
    const [entry] = entriesFor('auth.user.plan_changed', { userId: USER, planId: 'p1', planName: 'Pro' });
    expect(entry).toMatchObject({ action: 'PLAN_CHANGED', entity: 'User', details: { value: 'Pro' } });
  });

  it('writes nothing for auth events that are not audit actions', () => {
    expect(entriesFor('auth.user.registered', { userId: USER, email: 'a@b.c', name: 'A' })).toEqual([]);
    expect(entriesFor('auth.user.deleted', { userId: USER, actorId: USER })).toEqual([]);
    expect(
      entriesFor('auth.user.reset_requested', {
        userId: USER,
        email: 'a@b.c',
        name: 'A',
        resetUrl: 'http://x/r/t',
      }),
    ).toEqual([]);
    expect(
      entriesFor('auth.user.ban_changed', { userId: USER, isBanned: true, banReason: null, actorId: USER }),
    ).toEqual([]);
  });

  it('has exactly one row for every action of the spec list, and subscribes to exactly the mapped subjects', () => {
    const rows = Object.values(ACTION_TABLE).flat();
    expect(rows.map((r) => r!.action).sort()).toEqual([...AUDIT_ACTIONS].sort());
    expect(auditedSubjects().sort()).toEqual([
      'agent.agent.disconnected',
      'agent.agent.registered',
      'agent.agent.update_failed',
      'agent.agent.updated',
      'auth.user.api_key_regenerated',
      'auth.user.email_changed',
      'auth.user.password_changed',
      'auth.user.plan_changed',
      'backup.backup.completed',
      'backup.backup.created',
      'backup.backup.deleted',
      'backup.backup.failed',
      'restore.restore.completed',
      'restore.restore.failed',
      'restore.restore.initiated',
      'restore.restore.requested',
      'settings.backup.updated',
      'settings.notifications.updated',
      'storage.limit.exceeded',
    ]);
  });

  it('writes nothing for pipeline events that are not audit actions', () => {
    expect(entriesFor('backup.backup.started', backup('manual'))).toEqual([]);
    expect(entriesFor('backup.schedule.due', { userId: USER, databaseName: 'orders', slot: 1 })).toEqual([]);
    expect(
      entriesFor('agent.command.requested', {
        commandId: 'c1',
        userId: USER,
        agentId: AGENT,
        kind: 'restart',
      }),
    ).toEqual([]);
    expect(auditedSubjects()).not.toContain('backup.backup.started');
  });
});

const BACKUP = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const RESTORE = 'cccccccccccccccccccccccc';
const AGENT = 'dddddddddddddddddddddddd';
const backup = (type: 'manual' | 'auto') => ({
  userId: USER,
  backupId: BACKUP,
  databaseName: 'orders',
  agentId: AGENT,
  type,
});
const restore = {
  userId: USER,
  restoreId: RESTORE,
  backupId: BACKUP,
  databaseName: 'orders',
  agentId: AGENT,
};

describe('backup actions', () => {
  it.each([
    ['manual', 'User'],
    ['auto', 'System'],
  ] as const)('records a %s backup’s creation and completion with actor %s', (type, actor) => {
    const expected = {
      userId: USER,
      entity: 'Backup',
      entityId: BACKUP,
      actor,
      details: { databaseName: 'orders', type },
    };
    expect(entriesFor('backup.backup.created', backup(type))).toEqual([
      { ...expected, action: 'BACKUP_CREATED' },
    ]);
    expect(entriesFor('backup.backup.completed', { ...backup(type), size: 1536 })).toEqual([
      { ...expected, action: 'BACKUP_COMPLETED' },
    ]);
  });

  it('keeps the error of a failed backup', () => {
    expect(
      entriesFor('backup.backup.failed', { ...backup('auto'), error: 'mongodump: auth failed' }),
    ).toEqual([
      {
        userId: USER,
        action: 'BACKUP_FAILED',
        entity: 'Backup',
        entityId: BACKUP,
        actor: 'System',
        details: { databaseName: 'orders', type: 'auto', error: 'mongodump: auth failed' },
      },
    ]);
  });

  it('keeps only the start of a very long error', () => {
    const [entry] = entriesFor('backup.backup.failed', { ...backup('manual'), error: 'x'.repeat(5000) });
    expect(entry!.details.error).toHaveLength(1000);
    expect(entry!.details.error!.endsWith('…')).toBe(true);
  });

  it('tells a manual deletion (by the user) from an automatic one (retention, by the system)', () => {
    expect(entriesFor('backup.backup.deleted', backup('manual'))).toEqual([
      {
        userId: USER,
        action: 'BACKUP_DELETED_MANUAL',
        entity: 'Backup',
        entityId: BACKUP,
        actor: 'User',
        details: { databaseName: 'orders', type: 'manual' },
      },
    ]);
    expect(entriesFor('backup.backup.deleted', backup('auto'))).toEqual([
      {
        userId: USER,
        action: 'BACKUP_DELETED_AUTO',
        entity: 'Backup',
        entityId: BACKUP,
        actor: 'System',
        details: { databaseName: 'orders', type: 'auto' },
      },
    ]);
  });
});

describe('restore actions', () => {
  it('records request and start, by the user, about the restore', () => {
    for (const [subject, action] of [
      ['restore.restore.requested', 'RESTORE_REQUESTED'],
      ['restore.restore.initiated', 'RESTORE_INITIATED'],
    ] as const) {
      expect(entriesFor(subject, restore)).toEqual([
        {
          userId: USER,
          action,
          entity: 'Restore',
          entityId: RESTORE,
          actor: 'User',
          details: { databaseName: 'orders' },
        },
      ]);
    }
  });

  it('counts restored and failed documents', () => {
    const [entry] = entriesFor('restore.restore.completed', {
      ...restore,
      documentsRestored: 1234,
      documentsFailed: 0,
    });
    expect(entry).toMatchObject({
      action: 'RESTORE_COMPLETED',
      entity: 'Restore',
      entityId: RESTORE,
      actor: 'User',
      details: { databaseName: 'orders', value: '1234 restored, 0 failed' },
    });
  });

  it('keeps the error of a failed restore', () => {
    expect(entriesFor('restore.restore.failed', { ...restore, error: 'decryption failed' })[0]).toMatchObject(
      {
        action: 'RESTORE_FAILED',
        actor: 'User',
        details: { databaseName: 'orders', error: 'decryption failed' },
      },
    );
  });
});

describe('agent actions', () => {
  it('shows the agent as the actor, by name or else hostname', () => {
    expect(
      entriesFor('agent.agent.registered', {
        userId: USER,
        agentId: AGENT,
        name: 'db-box',
        hostname: 'host-1',
      }),
    ).toEqual([
      {
        userId: USER,
        action: 'AGENT_REGISTERED',
        entity: 'Agent',
        entityId: AGENT,
        actor: 'db-box',
        details: { name: 'db-box', hostname: 'host-1' },
      },
    ]);
    expect(
      entriesFor('agent.agent.disconnected', { userId: USER, agentId: AGENT, name: '', hostname: 'host-1' }),
    ).toEqual([
      {
        userId: USER,
        action: 'AGENT_DISCONNECTED',
        entity: 'Agent',
        entityId: AGENT,
        actor: 'host-1',
        details: { hostname: 'host-1' },
      },
    ]);
  });

  const agent = { userId: USER, agentId: AGENT, name: 'db-box', hostname: 'host-1' };

  it('records a self-update with the version change, by the agent', () => {
    expect(entriesFor('agent.agent.updated', { ...agent, fromVersion: '1.2.0', toVersion: '1.3.0' })).toEqual(
      [
        {
          userId: USER,
          action: 'AGENT_UPDATED',
          entity: 'Agent',
          entityId: AGENT,
          actor: 'db-box',
          details: { name: 'db-box', hostname: 'host-1', value: '1.2.0 → 1.3.0' },
        },
      ],
    );
  });

  it('records a failed self-update with the version that keeps running and the start of the error', () => {
    expect(
      entriesFor('agent.agent.update_failed', {
        ...agent,
        name: '',
        fromVersion: '1.2.0',
        error: 'cannot replace /usr/local/bin/coffer-agent (EACCES); this version keeps running',
      }),
    ).toEqual([
      {
        userId: USER,
        action: 'AGENT_UPDATE_FAILED',
        entity: 'Agent',
        entityId: AGENT,
        actor: 'host-1',
        details: {
          hostname: 'host-1',
          value: '1.2.0',
          error: 'cannot replace /usr/local/bin/coffer-agent (EACCES); this version keeps running',
        },
      },
    ]);
    const [long] = entriesFor('agent.agent.update_failed', {
      ...agent,
      fromVersion: '1.2.0',
      error: 'x'.repeat(4000),
    });
    expect(long!.details.error).toHaveLength(1000);
  });
});

describe('settings actions', () => {
  const settings = { userId: USER };
  const actions = (data: EventMap['settings.backup.updated']) => entriesFor('settings.backup.updated', data);

  it('records SETTINGS_UPDATED plus one entry for each setting that changed', () => {
    expect(
      actions({ ...settings, frequency: { from: 24, to: 1 }, retention: { from: 72, to: 168 } }),
    ).toEqual([
      {
        userId: USER,
        action: 'SETTINGS_UPDATED',
        entity: 'Settings',
        entityId: USER,
        actor: 'User',
        details: {},
      },
      {
        userId: USER,
        action: 'FREQUENCY_UPDATED',
        entity: 'Settings',
        entityId: USER,
        actor: 'User',
        details: { value: 'daily → hourly' },
      },
      {
        userId: USER,
        action: 'RETENTION_UPDATED',
        entity: 'Settings',
        entityId: USER,
        actor: 'User',
        details: { value: '3 days → 7 days' },
      },
    ]);
  });

  it('writes only the changed setting, and nothing for one whose value stayed', () => {
    expect(actions({ ...settings, retention: { from: 168, to: 2160 } }).map((e) => e.action)).toEqual([
      'SETTINGS_UPDATED',
      'RETENTION_UPDATED',
    ]);
    expect(actions({ ...settings, frequency: { from: 6, to: 12 } })[1]!.details).toEqual({
      value: '6 h → 12 h',
    });
    expect(actions({ ...settings, frequency: { from: 24, to: 24 } }).map((e) => e.action)).toEqual([
      'SETTINGS_UPDATED',
    ]);
    expect(actions(settings).map((e) => e.action)).toEqual(['SETTINGS_UPDATED']);
  });

  it('records the new notification toggles', () => {
    expect(
      entriesFor('settings.notifications.updated', {
        userId: USER,
        backupSuccess: false,
        backupFailure: true,
        agentDisconnection: true,
      }),
    ).toEqual([
      {
        userId: USER,
        action: 'NOTIFICATIONS_UPDATED',
        entity: 'Settings',
        entityId: USER,
        actor: 'User',
        details: { value: 'backup success off, backup failure on, agent disconnection on' },
      },
    ]);
  });
});

describe('storage actions', () => {
  it('shows the system as the actor and the usage against the limit in human units', () => {
    expect(
      entriesFor('storage.limit.exceeded', {
        userId: USER,
        blobId: 'blob-1',
        storageLimit: 1024 ** 3,
        bytesUsed: 1.5 * 1024 ** 3,
      }),
    ).toEqual([
      {
        userId: USER,
        action: 'STORAGE_LIMIT_EXCEEDED',
        entity: 'Storage',
        entityId: 'blob-1',
        actor: 'System',
        details: { value: '1.5 GB used of 1 GB' },
      },
    ]);
  });
});

describe('actor label (spec §4)', () => {
  it('shows the agent name, else its hostname, for agent actions', () => {
    expect(actorLabel('AGENT_REGISTERED', { name: 'db-box', hostname: 'host-1' })).toBe('db-box');
    expect(actorLabel('AGENT_DISCONNECTED', { hostname: 'host-1' })).toBe('host-1');
    expect(actorLabel('AGENT_UPDATED', { name: 'db-box', hostname: 'host-1' })).toBe('db-box');
    expect(actorLabel('AGENT_UPDATE_FAILED', { hostname: 'host-1' })).toBe('host-1');
  });

  it("says 'User' for manual backups and 'System' for automatic, AUTO and STORAGE actions", () => {
    expect(actorLabel('BACKUP_CREATED', { type: 'manual' })).toBe('User');
    expect(actorLabel('BACKUP_COMPLETED', { type: 'auto' })).toBe('System');
    expect(actorLabel('BACKUP_DELETED_AUTO', {})).toBe('System');
    expect(actorLabel('BACKUP_DELETED_MANUAL', {})).toBe('User');
    expect(actorLabel('STORAGE_LIMIT_EXCEEDED', {})).toBe('System');
  });

  it("says 'User' for every other action", () => {
    expect(actorLabel('PASSWORD_CHANGED', {})).toBe('User');
    expect(actorLabel('RESTORE_REQUESTED', {})).toBe('User');
    expect(actorLabel('RETENTION_UPDATED', {})).toBe('User');
  });
});
