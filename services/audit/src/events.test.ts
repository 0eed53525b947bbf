import { auditSubscriptions, streamOf } from './events';

describe('audit subscriptions', () => {
  it('reads the AUTH stream for the audited auth subjects only — never the reset link events', () => {
    const subs = auditSubscriptions();
    expect(subs).toHaveLength(1);
    expect(subs[0]!.stream).toBe('AUTH');
    expect(subs[0]!.subjects).toContain('auth.user.password_changed');
    expect(subs[0]!.subjects).not.toContain('auth.user.reset_requested');
  });

  it('finds the stream of a subject from its domain', () => {
    expect(streamOf('auth.user.deleted')).toBe('AUTH');
  });
});
