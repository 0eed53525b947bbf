import { authWorld } from '../test-world';
import { PLAN_CATALOGUE, toPlanMessage } from './plans';

describe('plan catalogue', () => {
  it('is seeded once: a second start keeps the ids users point at', async () => {
    const w = await authWorld();
    const before = await w.plans.list();
    await w.plans.seed();
    expect(await w.plans.list()).toEqual(before);
    expect(before.map((p) => [p.name, p.price])).toEqual([
      ['Free', 0],
      ['Starter', 9],
      ['Pro', 29],
      ['Business', 99],
    ]);
    expect(before).toHaveLength(PLAN_CATALOGUE.length);
    expect(toPlanMessage(before[0]!).features[0]).toEqual({ text: '1 database' });
  });

  it('names a bad plan id as bad input and an unknown one as not found', async () => {
    const w = await authWorld();
    await expect(w.plans.byId('nope')).rejects.toMatchObject({ kind: 'BAD_INPUT', message: 'Unknown plan' });
    await expect(w.plans.byId('a'.repeat(24))).rejects.toMatchObject({
      kind: 'NOT_FOUND',
      message: 'Plan not found',
    });
  });
});

describe('changing plans', () => {
  it('announces a real change (an admin assigning a paid plan)', async () => {
    const w = await authWorld();
    const { user } = await w.register();
    const pro = await w.plan('pro');
    await w.plans.assign(user.id, pro);
    expect((await w.plans.ofUser(user.id)).id).toBe(pro.id);
    expect(w.events.of('auth.user.plan_changed')).toEqual([
      { userId: user.id, planId: pro.id, planName: 'Pro' },
    ]);
    await expect(w.plans.assign('b'.repeat(24), pro)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await expect(w.plans.ofUser('b'.repeat(24))).rejects.toMatchObject({ kind: 'NOT_FOUND' });
  });
});
