import { agentEvents } from './protocol';

describe('agent protocol', () => {
  const update = agentEvents['agent:update'];

  it('accepts the outcomes the agent reports after an update', () => {
    expect(update.parse({ status: 'updated', fromVersion: '1.2.0', toVersion: '1.3.0' })).toEqual({
      status: 'updated',
      fromVersion: '1.2.0',
      toVersion: '1.3.0',
    });
    expect(
      update.safeParse({
        status: 'failed',
        fromVersion: '1.2.0',
        toVersion: '1.2.0',
        error: 'permission denied',
      }).success,
    ).toBe(true);
  });

  it.each([
    ['an unknown status', { status: 'done', fromVersion: '1.2.0', toVersion: '1.3.0' }],
    ['no versions', { status: 'updated' }],
    ['a version over 50 characters', { status: 'updated', fromVersion: '1.2.0', toVersion: '1'.repeat(51) }],
    [
      'an error over 4000 characters',
      { status: 'failed', fromVersion: '1.2.0', toVersion: '1.2.0', error: 'x'.repeat(4001) },
    ],
    ['no object at all', 'updated'],
  ])('refuses %s', (_what, payload) => {
    expect(update.safeParse(payload).success).toBe(false);
  });
});
