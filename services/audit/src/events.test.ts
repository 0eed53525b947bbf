import { auditSubscriptions, startAuditConsumers, streamOf } from './events';

describe('audit subscriptions', () => {
  it('reads the AUTH stream for the audited auth subjects only — never the reset link events', () => {
    const auth = auditSubscriptions().find((s) => s.stream === 'AUTH')!;
    expect(auth.subjects).toContain('auth.user.password_changed');
    expect(auth.subjects).not.toContain('auth.user.reset_requested');
  });

  it('reads every pipeline stream, each for its own audited subjects only', () => {
    const subs = auditSubscriptions();
    expect(subs.map((s) => s.stream).sort()).toEqual([
      'AGENT',
      'AUTH',
      'BACKUP',
      'KB',
      'RESTORE',
      'SETTINGS',
      'STORAGE',
    ]);
    for (const { stream, subjects } of subs) {
      for (const subject of subjects) expect(streamOf(subject)).toBe(stream);
    }
    const backup = subs.find((s) => s.stream === 'BACKUP')!;
    expect(backup.subjects).not.toContain('backup.backup.started');
    expect(backup.subjects).not.toContain('backup.schedule.due');
    const agent = subs.find((s) => s.stream === 'AGENT')!;
    expect(agent.subjects).toEqual(
      expect.arrayContaining(['agent.agent.updated', 'agent.agent.update_failed']),
    );
    expect(agent.subjects).not.toContain('agent.command.requested');
  });

  it('finds the stream of a subject from its domain', () => {
    expect(streamOf('auth.user.deleted')).toBe('AUTH');
    expect(streamOf('settings.notifications.updated')).toBe('SETTINGS');
    expect(streamOf('storage.limit.exceeded')).toBe('STORAGE');
    expect(streamOf('kb.article.published')).toBe('KB');
  });

  it('starts one durable audit consumer per stream', async () => {
    const consume = jest.fn().mockResolvedValue({ stop: async () => {} });
    await startAuditConsumers({ consume }, { record: jest.fn() });
    expect(consume).toHaveBeenCalledTimes(7);
    for (const [opts] of consume.mock.calls) expect(opts.durable).toBe('audit');
  });
});
