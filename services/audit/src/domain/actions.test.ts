import type { EventMap } from '@coffer/common';
import { ACTION_TABLE, AUDIT_ACTIONS, actorLabel, auditedSubjects, entriesFor } from './actions';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const ADMIN = '64b7f0c2a1b2c3d4e5f60799';

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
    const entries = entriesFor('auth.user.plan_changed', { userId: USER, planId: 'p1', planName: 'Pro' });
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'PLAN_CHANGED',
        entity: 'User',
        actor: 'User',
        details: { value: 'Pro' },
      }),
    ]);
  });

  it("writes an admin's actions on an account in the admin's log, about the user, with the admin as actor", () => {
    const about = { entity: 'User', entityId: USER, userId: ADMIN, actor: 'Admin' };
    const email = 'ada@example.com';
    expect(
      entriesFor('auth.user.plan_changed', {
        userId: USER,
        planId: 'p1',
        planName: 'Pro',
        actorId: ADMIN,
        email,
      }),
    ).toEqual([
      expect.objectContaining({
        action: 'PLAN_CHANGED',
        userId: USER,
        // The user's own log follows product §4: 'User' for every action not an agent's or the system's.
        actor: 'User',
        details: { value: 'Pro' },
      }),
      expect.objectContaining({ action: 'USER_PLAN_CHANGED', ...about, details: { value: `${email}: Pro` } }),
    ]);
    expect(
      entriesFor('auth.user.role_changed', { userId: USER, email, role: 'admin', actorId: ADMIN }),
    ).toEqual([
      expect.objectContaining({
        action: 'USER_ROLE_CHANGED',
        ...about,
        details: { value: `${email}: admin` },
      }),
    ]);
    expect(
      entriesFor('auth.user.status_changed', { userId: USER, email, status: 'inactive', actorId: ADMIN }),
    ).toEqual([
      expect.objectContaining({
        action: 'USER_STATUS_CHANGED',
        ...about,
        details: { value: `${email}: inactive` },
      }),
    ]);
    expect(
      entriesFor('auth.user.ban_changed', {
        userId: USER,
        isBanned: true,
        banReason: 'Spam',
        actorId: ADMIN,
        email,
      }),
    ).toEqual([
      expect.objectContaining({ action: 'USER_BANNED', ...about, details: { value: `${email}: Spam` } }),
    ]);
    expect(
      entriesFor('auth.user.ban_changed', {
        userId: USER,
        isBanned: false,
        banReason: null,
        actorId: ADMIN,
        email,
      }),
    ).toEqual([expect.objectContaining({ action: 'USER_UNBANNED', ...about, details: { value: email } })]);
    expect(entriesFor('auth.user.deleted', { userId: USER, actorId: ADMIN, email })).toEqual([
      expect.objectContaining({ action: 'USER_DELETED', ...about, details: { value: email } }),
    ]);
    // Older publishers sent no e-mail: the entry names the user by id.
    expect(entriesFor('auth.user.deleted', { userId: USER, actorId: ADMIN })[0]!.details).toEqual({
      value: USER,
    });
  });

  it("writes two-factor sign-in in the user's log and the admin requirement in the admin's", () => {
    expect(entriesFor('auth.user.two_factor_enabled', { userId: USER })).toEqual([
      expect.objectContaining({ action: 'TWO_FACTOR_ENABLED', userId: USER, actor: 'User' }),
    ]);
    expect(entriesFor('auth.user.two_factor_disabled', { userId: USER })).toEqual([
      expect.objectContaining({ action: 'TWO_FACTOR_DISABLED', userId: USER }),
    ]);
    expect(entriesFor('auth.user.recovery_code_used', { userId: USER, recoveryCodesLeft: 7 })).toEqual([
      expect.objectContaining({ action: 'RECOVERY_CODE_USED', details: { value: '7 recovery codes left' } }),
    ]);
    expect(
      entriesFor('auth.security.admin_two_factor_changed', { userId: ADMIN, requireAdminTwoFactor: true }),
    ).toEqual([
      expect.objectContaining({
        action: 'ADMIN_TWO_FACTOR_POLICY_CHANGED',
        userId: ADMIN,
        actor: 'Admin',
        details: { value: 'Admins must use two-factor sign-in' },
      }),
    ]);
  });

  it('writes nothing for auth events that are not audit actions', () => {
    expect(entriesFor('auth.user.registered', { userId: USER, email: 'a@b.c', name: 'A' })).toEqual([]);
    expect(entriesFor('auth.user.reset_requested', { userId: USER })).toEqual([]);
  });

  it('has exactly one row for every action of the spec list, and subscribes to exactly the mapped subjects', () => {
    const rows = Object.values(ACTION_TABLE).flat();
    expect(rows.map((r) => r!.action).sort()).toEqual([...AUDIT_ACTIONS].sort());
    expect(auditedSubjects().sort()).toEqual([
      'agent.agent.action_requested',
      'agent.agent.disconnected',
      'agent.agent.registered',
      'agent.agent.removed',
      'agent.agent.up_to_date',
      'agent.agent.update_failed',
      'agent.agent.updated',
      'auth.security.admin_two_factor_changed',
      'auth.user.api_key_regenerated',
      'auth.user.ban_changed',
      'auth.user.deleted',
      'auth.user.email_changed',
      'auth.user.password_changed',
      'auth.user.plan_changed',
      'auth.user.recovery_code_used',
      'auth.user.recovery_codes_regenerated',
      'auth.user.role_changed',
      'auth.user.status_changed',
      'auth.user.two_factor_disabled',
      'auth.user.two_factor_enabled',
      'backup.backup.completed',
      'backup.backup.created',
      'backup.backup.deleted',
      'backup.backup.failed',
      'backup.verification.completed',
      'backup.verification.failed',
      'kb.article.created',
      'kb.article.deleted',
      'kb.article.published',
      'kb.article.unpublished',
      'kb.article.updated',
      'restore.restore.completed',
      'restore.restore.failed',
      'restore.restore.initiated',
      'restore.restore.requested',
      'settings.backup.updated',
      'settings.database.updated',
      'settings.notification_email.changed',
      'settings.notification_email.requested',
      'settings.notifications.updated',
      'settings.retention_lock.updated',
      'settings.verification.updated',
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
    expect(entriesFor('backup.backup.completed', { ...backup(type), size: 1536, durationMs: 4200 })).toEqual([
      {
        ...expected,
        action: 'BACKUP_COMPLETED',
        details: { databaseName: 'orders', type, size: 1536, durationMs: 4200 },
      },
    ]);
  });

  it('keeps the size and the time it was taken of a deleted backup', () => {
    const [entry] = entriesFor('backup.backup.deleted', {
      ...backup('manual'),
      size: 2048,
      backupTimestamp: '2025-05-01T10:00:00.000Z',
    });
    expect(entry!.details).toEqual({
      databaseName: 'orders',
      type: 'manual',
      size: 2048,
      backupTimestamp: '2025-05-01T10:00:00.000Z',
    });
  });

  it('keeps the error of a failed backup', () => {
    expect(
      entriesFor('backup.backup.failed', {
        ...backup('auto'),
        error: 'mongodump: auth failed',
        durationMs: 800,
      }),
    ).toEqual([
      {
        userId: USER,
        action: 'BACKUP_FAILED',
        entity: 'Backup',
        entityId: BACKUP,
        actor: 'System',
        details: { databaseName: 'orders', type: 'auto', error: 'mongodump: auth failed', durationMs: 800 },
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

  it('counts restored and failed documents (a zero too) and names the backup by its time', () => {
    const [entry] = entriesFor('restore.restore.completed', {
      ...restore,
      backupTimestamp: '2025-05-01T10:00:00.000Z',
      documentsRestored: 1234,
      documentsFailed: 0,
      durationMs: 61_000,
    });
    expect(entry).toEqual({
      userId: USER,
      action: 'RESTORE_COMPLETED',
      entity: 'Restore',
      entityId: RESTORE,
      actor: 'User',
      details: {
        databaseName: 'orders',
        backupTimestamp: '2025-05-01T10:00:00.000Z',
        documentsRestored: 1234,
        documentsFailed: 0,
        durationMs: 61_000,
      },
    });
  });

  it('names the source and the target of a restore, and the chosen collections', () => {
    const elsewhere = {
      ...restore,
      databaseName: 'orders-copy',
      sourceDatabaseName: 'orders',
      sourceAgentId: AGENT,
      sourceAgentName: 'web-1',
      agentName: 'dr-1',
      collections: ['customers', 'events'],
    };
    for (const subject of [
      'restore.restore.requested',
      'restore.restore.initiated',
      'restore.restore.completed',
      'restore.restore.failed',
    ] as const)
      expect(
        entriesFor(subject, { ...elsewhere, documentsRestored: 1, documentsFailed: 0, error: 'x' })[0]!
          .details,
      ).toMatchObject({
        databaseName: 'orders-copy',
        value: "From 'orders' on web-1 into 'orders-copy' on dr-1 (collections: customers, events)",
      });
    // The spec's restore, into the backup's own database on its own agent: the database says it.
    const inPlace = {
      ...restore,
      sourceDatabaseName: 'orders',
      sourceAgentId: AGENT,
      sourceAgentName: 'web-1',
    };
    expect(
      entriesFor('restore.restore.requested', { ...inPlace, agentName: 'web-1' })[0]!.details.value,
    ).toBeUndefined();
    expect(
      entriesFor('restore.restore.requested', { ...inPlace, agentId: 'other', agentName: 'dr-1' })[0]!.details
        .value,
    ).toBe("From 'orders' on web-1 into 'orders' on dr-1");
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

  it('records a Check for Updates that found nothing newer, with the version (issue 21)', () => {
    expect(entriesFor('agent.agent.up_to_date', { ...agent, version: '1.2.0' })).toEqual([
      expect.objectContaining({
        action: 'AGENT_UP_TO_DATE',
        entity: 'Agent',
        entityId: AGENT,
        details: expect.objectContaining({ value: '1.2.0' }),
      }),
    ]);
  });
});

describe('actions the user takes on agents and databases', () => {
  const agent = { userId: USER, agentId: AGENT, name: 'db-box', hostname: 'host-1' };

  it.each([
    ['restart', 'AGENT_RESTART_REQUESTED'],
    ['update', 'AGENT_UPDATE_REQUESTED'],
    ['reset', 'AGENT_RESET_REQUESTED'],
  ] as const)('records a %s command as %s, by the user, naming the agent', (action, expected) => {
    expect(entriesFor('agent.agent.action_requested', { ...agent, action })).toEqual([
      {
        userId: USER,
        action: expected,
        entity: 'Agent',
        entityId: AGENT,
        actor: 'User',
        details: { name: 'db-box', hostname: 'host-1' },
      },
    ]);
  });

  it('records a removal by the user, or by an administrator saying so', () => {
    expect(entriesFor('agent.agent.removed', { ...agent, by: 'user' })).toEqual([
      {
        userId: USER,
        action: 'AGENT_REMOVED',
        entity: 'Agent',
        entityId: AGENT,
        actor: 'User',
        details: { name: 'db-box', hostname: 'host-1' },
      },
    ]);
    expect(entriesFor('agent.agent.removed', { ...agent, by: 'admin' })[0]).toMatchObject({
      actor: 'Admin',
      details: { value: 'Removed by an administrator' },
    });
  });

  it('records a database turned on or off with its name', () => {
    const db = { userId: USER, databaseId: 'eeeeeeeeeeeeeeeeeeeeeeee', databaseName: 'orders' };
    expect(entriesFor('settings.database.updated', { ...db, isActive: false })).toEqual([
      {
        userId: USER,
        action: 'DATABASE_DISABLED',
        entity: 'Database',
        entityId: db.databaseId,
        actor: 'User',
        details: { databaseName: 'orders' },
      },
    ]);
    expect(entriesFor('settings.database.updated', { ...db, isActive: true }).map((e) => e.action)).toEqual([
      'DATABASE_ENABLED',
    ]);
  });

  it('records a change of how a database is verified, in the words Settings shows', () => {
    const change = { userId: USER, databaseId: 'eeeeeeeeeeeeeeeeeeeeeeee', databaseName: 'orders' };
    expect(entriesFor('settings.verification.updated', { ...change, from: 'off', to: 'weekly' })).toEqual([
      {
        userId: USER,
        action: 'VERIFICATION_UPDATED',
        entity: 'Database',
        entityId: change.databaseId,
        actor: 'User',
        details: { databaseName: 'orders', value: 'Off → Verify weekly' },
      },
    ]);
  });

  it('records a notification address change when asked and when confirmed', () => {
    expect(
      entriesFor('settings.notification_email.requested', {
        userId: USER,
        email: 'ops@example.com',
        current: null,
      })[0],
    ).toMatchObject({
      action: 'NOTIFICATION_EMAIL_CHANGE_REQUESTED',
      entity: 'Settings',
      actor: 'User',
      details: { value: 'ops@example.com (waiting for confirmation)' },
    });
    expect(
      entriesFor('settings.notification_email.changed', {
        userId: USER,
        email: 'ops@example.com',
        previous: null,
      })[0]!.details,
    ).toEqual({ value: 'account email → ops@example.com' });
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
        details: { value: 'frequency daily → hourly, retention 3 days → 7 days' },
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
