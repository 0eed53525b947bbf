// One set of cases for both store implementations: the in-memory fakes auth's domain tests use and
// the mongoose stores on a real FerretDB. A case that passes for one and fails for the other means a
// unit test somewhere proves less than it claims.
import { isDuplicateKeyError } from '@coffer/common';
import { ferretDbPerCase } from '@coffer/common/testing';
import { authModels } from '../model';
import { fakeAuthStores } from './fake';
import { mongoAuthStores } from './index';
import type { AuthStores, NewPlan, NewUser } from './types';

const ferretDb = ferretDbPerCase('auth_contract');

async function onFerretDb(): Promise<AuthStores> {
  const db = ferretDb.fresh();
  const models = authModels(db);
  await Promise.all(Object.values(models).map((m) => m.init()));
  return mongoAuthStores(models);
}

const PLAN_ID = 'c'.repeat(24);
const MISSING = 'b'.repeat(24);
// Mongo's createdAt has millisecond resolution; a pause keeps "newest first" unambiguous.
const tick = () => new Promise((r) => setTimeout(r, 5));

const plan = (key: string, order: number, price: number): NewPlan => ({
  key,
  name: key.toUpperCase(),
  price,
  popular: false,
  dbLimit: 1,
  retentionLimit: 168,
  storageLimit: 1024,
  frequencyLimit: 24,
  gfsLimits: { hourly: 0, daily: 7, weekly: 4, monthly: 0, yearly: 0 },
  features: [`${key} feature`],
  order,
});

const user = (email: string, apiKeyHash = `hash-${email}`): NewUser => ({
  email,
  name: 'Ada',
  passwordHash: 'argon2-hash',
  role: 'user',
  plan: PLAN_ID,
  apiKeyHash,
  apiKeySealed: 'sealed',
});

describe.each([
  ['in-memory fakes', async () => fakeAuthStores() as AuthStores],
  ['mongoose on FerretDB', onFerretDb],
])('auth stores: %s', (_name, make) => {
  let stores: AuthStores;
  beforeEach(async () => {
    stores = await make();
  });

  describe('plans', () => {
    it('inserts a plan once by key; a later seed changes neither its id nor its values', async () => {
      await stores.plans.ensure(plan('pro', 2, 29));
      const pro = (await stores.plans.byKey('pro'))!;
      expect(pro).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), ...plan('pro', 2, 29) });
      await stores.plans.ensure({ ...plan('pro', 2, 29), price: 39 });
      expect(await stores.plans.byKey('pro')).toEqual(pro);
      expect(await stores.plans.get(pro.id)).toEqual(pro);
      expect(await stores.plans.get(MISSING)).toBeNull();
      expect(await stores.plans.get('not-an-id')).toBeNull();
      expect(await stores.plans.byKey('gold')).toBeNull();
    });

    it('lists by order, then price', async () => {
      await stores.plans.ensure(plan('b', 1, 20));
      await stores.plans.ensure(plan('a', 1, 10));
      await stores.plans.ensure(plan('free', 0, 0));
      expect((await stores.plans.list()).map((p) => p.key)).toEqual(['free', 'a', 'b']);
    });
  });

  describe('users', () => {
    it('fills the defaults on insert and finds users by id, e-mail and API key hash', async () => {
      const u = await stores.users.insert(user('ada@example.com'));
      expect(u).toEqual({
        ...user('ada@example.com'),
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        status: 'active',
        isBanned: false,
        banReason: null,
        bannedAt: null,
        sessionVersion: 0,
        createdAt: u.createdAt,
      });
      // (Not expect.any(Date): the fakes' structuredClone makes Dates of another realm under jest.)
      expect(Number.isNaN(u.createdAt.getTime())).toBe(false);
      expect(await stores.users.get(u.id)).toEqual(u);
      expect(await stores.users.byEmail('ada@example.com')).toEqual(u);
      expect(await stores.users.byApiKeyHash('hash-ada@example.com')).toEqual(u);
      expect(await stores.users.get(MISSING)).toBeNull();
      expect(await stores.users.get('not-an-id')).toBeNull();
      expect(await stores.users.byEmail('grace@example.com')).toBeNull();
    });

    it('keeps e-mails and API key hashes unique, on insert and on update', async () => {
      const ada = await stores.users.insert(user('ada@example.com'));
      await stores.users.insert(user('grace@example.com'));
      const clash = (p: Promise<unknown>) =>
        p.then(
          () => 'no error',
          (e: unknown) => isDuplicateKeyError(e),
        );
      expect(await clash(stores.users.insert(user('ada@example.com', 'other')))).toBe(true);
      expect(await clash(stores.users.insert(user('new@example.com', 'hash-ada@example.com')))).toBe(true);
      expect(await clash(stores.users.update(ada.id, { email: 'grace@example.com' }))).toBe(true);
      expect((await stores.users.get(ada.id))!.email).toBe('ada@example.com');
    });

    it('updates in one write and answers the user after it, or null when there is none', async () => {
      const u = await stores.users.insert(user('ada@example.com'));
      const bannedAt = new Date('2025-06-02T10:00:00Z');
      expect(
        await stores.users.update(u.id, { isBanned: true, banReason: 'Spam', bannedAt, role: 'admin' }),
      ).toEqual({ ...u, isBanned: true, banReason: 'Spam', bannedAt, role: 'admin' });
      expect(await stores.users.update(u.id, { banReason: null, bannedAt: null })).toMatchObject({
        banReason: null,
        bannedAt: null,
      });
      expect(await stores.users.update(MISSING, { name: 'x' })).toBeNull();
    });

    it('answers the plan before a plan change', async () => {
      const u = await stores.users.insert(user('ada@example.com'));
      const other = 'd'.repeat(24);
      expect(await stores.users.setPlan(u.id, other)).toBe(PLAN_ID);
      expect(await stores.users.setPlan(u.id, other)).toBe(other);
      expect((await stores.users.get(u.id))!.plan).toBe(other);
      expect(await stores.users.setPlan(MISSING, other)).toBeNull();
    });

    it('raises the session version with a new password only when asked to end sessions', async () => {
      const u = await stores.users.insert(user('ada@example.com'));
      expect(await stores.users.setPassword(u.id, 'h2', { endSessions: false })).toBe(true);
      expect(await stores.users.get(u.id)).toMatchObject({ passwordHash: 'h2', sessionVersion: 0 });
      expect(await stores.users.setPassword(u.id, 'h3', { endSessions: true })).toBe(true);
      expect(await stores.users.get(u.id)).toMatchObject({ passwordHash: 'h3', sessionVersion: 1 });
      expect(await stores.users.setPassword(MISSING, 'h4', { endSessions: true })).toBe(false);
    });

    it('lists newest first and removes once', async () => {
      const a = await stores.users.insert(user('a@example.com'));
      await tick();
      const b = await stores.users.insert(user('b@example.com'));
      expect((await stores.users.list()).map((u) => u.id)).toEqual([b.id, a.id]);
      expect(await stores.users.remove(a.id)).toBe(true);
      expect(await stores.users.remove(a.id)).toBe(false);
      expect(await stores.users.remove('not-an-id')).toBe(false);
      expect((await stores.users.list()).map((u) => u.id)).toEqual([b.id]);
    });

    it('pages the list newest first from a cursor, ending on an empty page', async () => {
      const made = [];
      for (const name of ['a', 'b', 'c', 'd', 'e']) {
        made.push((await stores.users.insert(user(`${name}@example.com`))).id);
        await tick();
      }
      const seen: string[] = [];
      let before: { createdAt: Date; id: string } | undefined;
      for (;;) {
        const page = await stores.users.list({ limit: 2, before });
        if (!page.length) break;
        expect(page.length).toBeLessThanOrEqual(2);
        seen.push(...page.map((u) => u.id));
        const last = page[page.length - 1]!;
        before = { createdAt: last.createdAt, id: last.id };
      }
      expect(seen).toEqual(made.reverse());
      expect((await stores.users.list()).map((u) => u.id)).toEqual(seen);
    });
  });

  describe('reset tokens', () => {
    const t0 = new Date('2025-06-02T10:00:00Z');
    const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
    const USER = 'e'.repeat(24);

    it('is valid until it expires, and claimed once', async () => {
      await stores.resetTokens.insert({
        userId: USER,
        tokenHash: 'h1',
        accountStamp: 's',
        expiresAt: at(60),
      });
      expect(await stores.resetTokens.findValid('h1', at(59))).toMatchObject({
        userId: USER,
        tokenHash: 'h1',
        accountStamp: 's',
        expiresAt: at(60),
        usedAt: null,
      });
      expect(await stores.resetTokens.findValid('h1', at(60))).toBeNull();
      expect(await stores.resetTokens.claim('h1', at(60))).toBeNull();
      expect(await stores.resetTokens.findValid('nope', at(0))).toBeNull();

      expect(await stores.resetTokens.claim('h1', at(10))).toMatchObject({ userId: USER, usedAt: at(10) });
      expect(await stores.resetTokens.claim('h1', at(11))).toBeNull();
      expect(await stores.resetTokens.findValid('h1', at(12))).toBeNull();
    });

    it('removes every token of one user, and only theirs', async () => {
      const OTHER = 'f'.repeat(24);
      await stores.resetTokens.insert({
        userId: USER,
        tokenHash: 'u1',
        accountStamp: 's',
        expiresAt: at(60),
      });
      await stores.resetTokens.insert({
        userId: USER,
        tokenHash: 'u2',
        accountStamp: 's',
        expiresAt: at(60),
      });
      await stores.resetTokens.insert({
        userId: OTHER,
        tokenHash: 'o1',
        accountStamp: 's',
        expiresAt: at(60),
      });
      await stores.resetTokens.removeForUser(USER);
      expect(await stores.resetTokens.findValid('u1', at(0))).toBeNull();
      expect(await stores.resetTokens.findValid('u2', at(0))).toBeNull();
      expect(await stores.resetTokens.findValid('o1', at(0))).toMatchObject({ userId: OTHER });
    });

    it('removes the tokens that expired before the given time', async () => {
      await stores.resetTokens.insert({
        userId: USER,
        tokenHash: 'old',
        accountStamp: 's',
        expiresAt: at(0),
      });
      await stores.resetTokens.insert({
        userId: USER,
        tokenHash: 'new',
        accountStamp: 's',
        expiresAt: at(120),
      });
      await stores.resetTokens.removeExpired(at(60));
      expect(await stores.resetTokens.findValid('old', at(-10))).toBeNull();
      expect(await stores.resetTokens.findValid('new', at(-10))).toMatchObject({ tokenHash: 'new' });
    });
  });

  describe('ended sessions', () => {
    const t0 = new Date('2025-06-02T10:00:00Z');
    const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
    const USER = 'e'.repeat(24);
    const OTHER = 'f'.repeat(24);

    it("lists a user's ended sessions until their tokens expire, each once", async () => {
      await stores.endedSessions.add({ userId: USER, sessionId: 's1', expiresAt: at(60) });
      await stores.endedSessions.add({ userId: USER, sessionId: 's1', expiresAt: at(60) });
      await stores.endedSessions.add({ userId: USER, sessionId: 's2', expiresAt: at(10) });
      await stores.endedSessions.add({ userId: OTHER, sessionId: 's3', expiresAt: at(60) });
      expect((await stores.endedSessions.activeFor(USER, at(0))).sort()).toEqual(['s1', 's2']);
      expect(await stores.endedSessions.activeFor(USER, at(10))).toEqual(['s1']);
      expect(await stores.endedSessions.activeFor(OTHER, at(0))).toEqual(['s3']);
    });

    it('removes the records that expired before the given time', async () => {
      await stores.endedSessions.add({ userId: USER, sessionId: 'old', expiresAt: at(0) });
      await stores.endedSessions.add({ userId: USER, sessionId: 'new', expiresAt: at(120) });
      await stores.endedSessions.removeExpired(at(60));
      expect(await stores.endedSessions.activeFor(USER, at(-10))).toEqual(['new']);
    });
  });

  describe('billing', () => {
    const USER_ID = 'd'.repeat(24);
    const sub = {
      userId: USER_ID,
      customerId: 'cus_1',
      subscriptionId: 'sub_1',
      planId: PLAN_ID,
      status: 'active',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: new Date('2027-01-01T00:00:00.000Z'),
    };

    it("keeps one subscription per user, found by user and by Stripe's id, removed only while it is that one", async () => {
      expect(await stores.billing.subscriptionOf(USER_ID)).toBeNull();
      await stores.billing.saveSubscription(sub);
      expect(await stores.billing.subscriptionOf(USER_ID)).toEqual(sub);
      await stores.billing.saveSubscription({ ...sub, cancelAtPeriodEnd: true, pendingPlanId: MISSING });
      expect(await stores.billing.bySubscriptionId('sub_1')).toEqual({
        ...sub,
        cancelAtPeriodEnd: true,
        pendingPlanId: MISSING,
      });
      // A pending plan dropped by a later save is gone, not kept from before.
      await stores.billing.saveSubscription({ ...sub, subscriptionId: 'sub_2' });
      expect(await stores.billing.subscriptionOf(USER_ID)).toEqual({ ...sub, subscriptionId: 'sub_2' });
      expect(await stores.billing.allSubscriptions()).toEqual([{ ...sub, subscriptionId: 'sub_2' }]);
      await stores.billing.removeSubscription(USER_ID, 'sub_1');
      expect(await stores.billing.bySubscriptionId('sub_2')).not.toBeNull();
      await stores.billing.removeSubscription(USER_ID, 'sub_2');
      expect(await stores.billing.subscriptionOf(USER_ID)).toBeNull();
    });

    it('lets one delivery of an event claim it; the others see it busy, then done', async () => {
      const t = new Date('2025-06-02T10:00:00Z');
      const later = (ms: number) => new Date(t.getTime() + ms);
      const claims = await Promise.all(
        [1, 2, 3, 4, 5].map(() => stores.billing.claimEvent('evt_1', 'invoice.paid', t, later(-60_000))),
      );
      expect(claims.filter((c) => c === 'claimed')).toHaveLength(1);
      expect(claims.filter((c) => c === 'busy')).toHaveLength(4);
      await stores.billing.finishEvent('evt_1');
      expect(await stores.billing.claimEvent('evt_1', 'invoice.paid', later(1), t)).toBe('done');
    });

    it('frees a released claim, and takes over a stale one', async () => {
      const t = new Date('2025-06-02T11:00:00Z');
      const later = (ms: number) => new Date(t.getTime() + ms);
      expect(await stores.billing.claimEvent('evt_2', 'invoice.paid', t, later(-60_000))).toBe('claimed');
      await stores.billing.releaseEvent('evt_2', t);
      expect(await stores.billing.claimEvent('evt_2', 'invoice.paid', later(1), t)).toBe('claimed');
      // Its handler died: busy until the claim is older than the stale limit.
      expect(await stores.billing.claimEvent('evt_2', 'invoice.paid', later(2), t)).toBe('busy');
      expect(await stores.billing.claimEvent('evt_2', 'invoice.paid', later(3), later(2))).toBe('claimed');
      // The first claim's release no longer drops the one that took over.
      await stores.billing.releaseEvent('evt_2', t);
      expect(await stores.billing.claimEvent('evt_2', 'invoice.paid', later(4), t)).toBe('busy');
    });
  });
  describe('two-factor', () => {
    const U = 'a'.repeat(24);
    const at = { step: 100, now: new Date('2025-06-02T10:00:00.000Z') };

    it('enables only the pending enrolment with the same secret, once; a new one cannot start while on', async () => {
      expect(await stores.twoFactor.get(U)).toBeNull();
      expect(await stores.twoFactor.startEnrolment(U, 'sealed-1')).toBe(true);
      // Restarting replaces the secret: a confirmation of the first one finds nothing.
      expect(await stores.twoFactor.startEnrolment(U, 'sealed-2')).toBe(true);
      expect(await stores.twoFactor.enable(U, 'sealed-1', at, ['h1'])).toBe(false);
      expect(await stores.twoFactor.enable(U, 'sealed-2', at, ['h1', 'h2'])).toBe(true);
      expect(await stores.twoFactor.enable(U, 'sealed-2', at, ['h3'])).toBe(false);
      expect(await stores.twoFactor.startEnrolment(U, 'sealed-3')).toBe(false);
      expect(await stores.twoFactor.get(U)).toEqual({
        userId: U,
        secretSealed: 'sealed-2',
        enabled: true,
        enabledAt: at.now,
        lastStep: 100,
        recoveryCodes: ['h1', 'h2'],
      });
    });

    it('takes each step after the last used once, and each recovery code once', async () => {
      await stores.twoFactor.startEnrolment(U, 'sealed');
      // Nothing is used while the enrolment is pending.
      expect(await stores.twoFactor.useStep(U, 5)).toBe(false);
      expect(await stores.twoFactor.useRecoveryCode(U, 'h1')).toBe(false);
      await stores.twoFactor.enable(U, 'sealed', at, ['h1', 'h2']);
      expect(await stores.twoFactor.useStep(U, 100)).toBe(false);
      const steps = await Promise.all([stores.twoFactor.useStep(U, 101), stores.twoFactor.useStep(U, 101)]);
      expect(steps.filter(Boolean)).toHaveLength(1);
      expect(await stores.twoFactor.useStep(U, 101)).toBe(false);
      expect(await stores.twoFactor.useStep(U, 99)).toBe(false);
      const uses = await Promise.all([
        stores.twoFactor.useRecoveryCode(U, 'h1'),
        stores.twoFactor.useRecoveryCode(U, 'h1'),
      ]);
      expect(uses.filter(Boolean)).toHaveLength(1);
      expect((await stores.twoFactor.get(U))!.recoveryCodes).toEqual(['h2']);
      expect(await stores.twoFactor.setRecoveryCodes(U, ['h9'])).toBe(true);
      expect(await stores.twoFactor.useRecoveryCode(U, 'h2')).toBe(false);
      await stores.twoFactor.remove(U);
      expect(await stores.twoFactor.get(U)).toBeNull();
      expect(await stores.twoFactor.setRecoveryCodes(U, ['h9'])).toBe(false);
    });

    it('keeps the site security settings, off by default', async () => {
      expect(await stores.securitySettings.get()).toEqual({ requireAdminTwoFactor: false });
      await stores.securitySettings.set({ requireAdminTwoFactor: true });
      expect(await stores.securitySettings.get()).toEqual({ requireAdminTwoFactor: true });
    });
  });
});
