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

  it('only uses actions from the spec list and subscribes to exactly the mapped subjects', () => {
    for (const row of Object.values(ACTION_TABLE).flat()) expect(AUDIT_ACTIONS).toContain(row!.action);
    expect(auditedSubjects().sort()).toEqual([
      'auth.user.api_key_regenerated',
      'auth.user.email_changed',
      'auth.user.password_changed',
      'auth.user.plan_changed',
    ]);
  });
});

describe('actor label (spec §4)', () => {
  it('shows the agent name, else its hostname, for agent actions', () => {
    expect(actorLabel('AGENT_REGISTERED', { name: 'db-box', hostname: 'host-1' })).toBe('db-box');
    expect(actorLabel('AGENT_DISCONNECTED', { hostname: 'host-1' })).toBe('host-1');
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
