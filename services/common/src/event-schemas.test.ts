import { EVENT_SCHEMAS, eventProblem } from './event-schemas';

const envelope = (subject: string, data: unknown) => ({
  id: 'e1',
  subject,
  occurredAt: '2026-01-01T00:00:00.000Z',
  data,
});

describe('eventProblem', () => {
  it('accepts a well-formed event, with fields a newer publisher added', () => {
    const data = { userId: 'u1', email: 'a@example.com', name: 'Ada', since: 'v2' };
    expect(eventProblem('auth.user.registered', envelope('auth.user.registered', data))).toBeNull();
  });

  it('names what is missing or of the wrong type', () => {
    expect(eventProblem('auth.user.registered', envelope('auth.user.registered', { userId: 'u1' }))).toMatch(
      /email/,
    );
    expect(
      eventProblem('backup.backup.completed', {
        ...envelope('backup.backup.completed', {
          userId: 'u',
          backupId: 'b',
          databaseName: 'shop',
          agentId: 'a',
          type: 'auto',
          size: 'large',
        }),
      }),
    ).toMatch(/size/);
  });

  it('refuses what is not an envelope, and an envelope sent on another subject', () => {
    expect(eventProblem('auth.user.deleted', { userId: 'u1' })).toMatch(/^not an event envelope/);
    expect(eventProblem('auth.user.deleted', envelope('auth.user.registered', { userId: 'u1' }))).toMatch(
      /names auth.user.registered/,
    );
    expect(eventProblem('progress.backup', envelope('progress.backup', {}))).toMatch(/no schema/);
  });

  it('has a schema for every persisted subject of every stream', () => {
    const domains = new Set(Object.keys(EVENT_SCHEMAS).map((s) => s.split('.')[0]));
    expect([...domains].sort()).toEqual(['agent', 'auth', 'backup', 'kb', 'restore', 'settings', 'storage']);
  });
});
