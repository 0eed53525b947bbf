import { isOlderThan } from '@coffer/common';
import type {
  AuthStores,
  BillingStore,
  EndedSessionRecord,
  EndedSessionStore,
  SubscriptionRecord,
  PlanRecord,
  PlanStore,
  ResetTokenRecord,
  ResetTokenStore,
  SecuritySettings,
  SecuritySettingsStore,
  TwoFactorRecord,
  TwoFactorStore,
  UserRecord,
  UserStore,
} from './types.js';
import {
  copyRecord as copy,
  duplicateKeyError as duplicateKey,
  nextHexId as hexId,
} from '@coffer/common/testing';

// In-memory stores for unit tests, with the same unique keys, orderings and conditional updates as
// the mongoose ones (store/contract.service.test.ts runs both through the same cases). Records are copied
// in and out, as a database would.

export function fakePlanStore(): PlanStore & { rows: Map<string, PlanRecord> } {
  const rows = new Map<string, PlanRecord>();
  const byKey = (key: string) => [...rows.values()].find((p) => p.key === key);
  return {
    rows,
    async ensure(plan) {
      const existing = byKey(plan.key);
      if (existing && !existing.gfsLimits) existing.gfsLimits = { ...plan.gfsLimits };
      if (existing) return;
      const id = hexId();
      rows.set(id, { ...copy(plan), id });
    },
    async list() {
      return [...rows.values()].sort((a, b) => a.order - b.order || a.price - b.price).map(copy);
    },
    async get(id) {
      const p = rows.get(id);
      return p ? copy(p) : null;
    },
    async byKey(key) {
      const p = byKey(key);
      return p ? copy(p) : null;
    },
  };
}

export function fakeUserStore(now = () => new Date()): UserStore & { rows: Map<string, UserRecord> } {
  const rows = new Map<string, UserRecord>();
  const all = () => [...rows.values()];
  const clash = (id: string, u: Partial<UserRecord>) =>
    all().some(
      (o) =>
        o.id !== id &&
        ((u.email !== undefined && o.email === u.email) ||
          (u.apiKeyHash !== undefined && o.apiKeyHash === u.apiKeyHash)),
    );
  const found = (u: UserRecord | undefined) => (u ? copy(u) : null);
  return {
    rows,
    async insert(user) {
      const id = hexId();
      if (clash(id, user)) throw duplicateKey();
      const row: UserRecord = {
        status: 'active',
        isBanned: false,
        banReason: null,
        bannedAt: null,
        sessionVersion: 0,
        createdAt: now(),
        ...copy(user),
        id,
      };
      rows.set(id, row);
      return copy(row);
    },
    async get(id) {
      return found(rows.get(id));
    },
    async byEmail(email) {
      return found(all().find((u) => u.email === email));
    },
    async byApiKeyHash(apiKeyHash) {
      return found(all().find((u) => u.apiKeyHash === apiKeyHash));
    },
    async list(page) {
      return all()
        .filter((u) => isOlderThan(u, page?.before))
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id))
        .slice(0, page?.limit)
        .map(copy);
    },
    async update(id, patch) {
      const u = rows.get(id);
      if (!u) return null;
      if (clash(id, patch)) throw duplicateKey();
      const next = { ...u, ...copy(patch) };
      rows.set(id, next);
      return copy(next);
    },
    async setPlan(id, planId) {
      const u = rows.get(id);
      if (!u) return null;
      rows.set(id, { ...u, plan: planId });
      return u.plan;
    },
    async setPassword(id, passwordHash, { endSessions }) {
      const u = rows.get(id);
      if (!u) return false;
      rows.set(id, { ...u, passwordHash, sessionVersion: u.sessionVersion + (endSessions ? 1 : 0) });
      return true;
    },
    async remove(id) {
      return rows.delete(id);
    },
  };
}

export function fakeResetTokenStore(): ResetTokenStore & { rows: Map<string, ResetTokenRecord> } {
  const rows = new Map<string, ResetTokenRecord>();
  const valid = (tokenHash: string, now: Date) =>
    [...rows.values()].find((t) => t.tokenHash === tokenHash && t.usedAt === null && t.expiresAt > now);
  return {
    rows,
    async insert(token) {
      if ([...rows.values()].some((t) => t.tokenHash === token.tokenHash)) throw duplicateKey();
      const id = hexId();
      rows.set(id, { ...copy(token), id, usedAt: null });
    },
    async findValid(tokenHash, now) {
      const t = valid(tokenHash, now);
      return t ? copy(t) : null;
    },
    async claim(tokenHash, now) {
      const t = valid(tokenHash, now);
      if (!t) return null;
      const next = { ...t, usedAt: now };
      rows.set(t.id, next);
      return copy(next);
    },
    async removeExpired(before) {
      for (const t of [...rows.values()]) if (t.expiresAt < before) rows.delete(t.id);
    },
    async removeForUser(userId) {
      for (const t of [...rows.values()]) if (t.userId === userId) rows.delete(t.id);
    },
  };
}

export function fakeBillingStore(): BillingStore & {
  subscriptions: Map<string, SubscriptionRecord>;
  processed: Set<string>;
} {
  const subscriptions = new Map<string, SubscriptionRecord>();
  const processed = new Set<string>();
  /** Events being handled: when the claim was made. */
  const claims = new Map<string, Date>();
  return {
    subscriptions,
    processed,
    async subscriptionOf(userId) {
      const s = subscriptions.get(userId);
      return s ? copy(s) : null;
    },
    async bySubscriptionId(subscriptionId) {
      const s = [...subscriptions.values()].find((r) => r.subscriptionId === subscriptionId);
      return s ? copy(s) : null;
    },
    async saveSubscription(record) {
      subscriptions.set(record.userId, copy(record));
    },
    async removeSubscription(userId, subscriptionId) {
      if (subscriptions.get(userId)?.subscriptionId === subscriptionId) subscriptions.delete(userId);
    },
    async allSubscriptions() {
      return [...subscriptions.values()].map(copy);
    },
    async claimEvent(eventId, _type, at, staleBefore) {
      const claim = claims.get(eventId);
      if (processed.has(eventId)) return 'done';
      if (claim && claim >= staleBefore) return 'busy';
      claims.set(eventId, at);
      return 'claimed';
    },
    async finishEvent(eventId) {
      claims.delete(eventId);
      processed.add(eventId);
    },
    async releaseEvent(eventId, at) {
      if (claims.get(eventId)?.getTime() === at.getTime()) claims.delete(eventId);
    },
  };
}

export function fakeEndedSessionStore(): EndedSessionStore & { rows: Map<string, EndedSessionRecord> } {
  const rows = new Map<string, EndedSessionRecord>();
  return {
    rows,
    async add(record) {
      rows.set(`${record.userId}/${record.sessionId}`, copy(record));
    },
    async activeFor(userId, now) {
      return [...rows.values()]
        .filter((r) => r.userId === userId && r.expiresAt > now)
        .map((r) => r.sessionId);
    },
    async removeExpired(before) {
      for (const [key, r] of [...rows]) if (r.expiresAt < before) rows.delete(key);
    },
  };
}

export function fakeTwoFactorStore(): TwoFactorStore & { rows: Map<string, TwoFactorRecord> } {
  const rows = new Map<string, TwoFactorRecord>();
  const enabledRow = (userId: string) => {
    const r = rows.get(userId);
    return r?.enabled ? r : undefined;
  };
  return {
    rows,
    async get(userId) {
      const r = rows.get(userId);
      return r ? copy(r) : null;
    },
    async startEnrolment(userId, secretSealed) {
      if (enabledRow(userId)) return false;
      rows.set(userId, {
        userId,
        secretSealed,
        enabled: false,
        enabledAt: null,
        lastStep: 0,
        recoveryCodes: [],
      });
      return true;
    },
    async enable(userId, secretSealed, { step, now }, recoveryCodes) {
      const r = rows.get(userId);
      if (!r || r.enabled || r.secretSealed !== secretSealed) return false;
      rows.set(userId, {
        ...r,
        enabled: true,
        enabledAt: now,
        lastStep: step,
        recoveryCodes: [...recoveryCodes],
      });
      return true;
    },
    async useStep(userId, step) {
      const r = enabledRow(userId);
      if (!r || r.lastStep >= step) return false;
      r.lastStep = step;
      return true;
    },
    async useRecoveryCode(userId, codeHash) {
      const r = enabledRow(userId);
      if (!r?.recoveryCodes.includes(codeHash)) return false;
      r.recoveryCodes = r.recoveryCodes.filter((c) => c !== codeHash);
      return true;
    },
    async setRecoveryCodes(userId, codeHashes) {
      const r = enabledRow(userId);
      if (!r) return false;
      r.recoveryCodes = [...codeHashes];
      return true;
    },
    async remove(userId) {
      rows.delete(userId);
    },
  };
}

export function fakeSecuritySettingsStore(): SecuritySettingsStore & { value: SecuritySettings } {
  const store = {
    value: { requireAdminTwoFactor: false },
    async get() {
      return copy(store.value);
    },
    async set(settings: SecuritySettings) {
      store.value = copy(settings);
    },
  };
  return store;
}

export type FakeAuthStores = {
  plans: ReturnType<typeof fakePlanStore>;
  users: ReturnType<typeof fakeUserStore>;
  resetTokens: ReturnType<typeof fakeResetTokenStore>;
  billing: ReturnType<typeof fakeBillingStore>;
  endedSessions: ReturnType<typeof fakeEndedSessionStore>;
  twoFactor: ReturnType<typeof fakeTwoFactorStore>;
  securitySettings: ReturnType<typeof fakeSecuritySettingsStore>;
} & AuthStores;

export function fakeAuthStores(now?: () => Date): FakeAuthStores {
  return {
    plans: fakePlanStore(),
    users: fakeUserStore(now),
    resetTokens: fakeResetTokenStore(),
    billing: fakeBillingStore(),
    endedSessions: fakeEndedSessionStore(),
    twoFactor: fakeTwoFactorStore(),
    securitySettings: fakeSecuritySettingsStore(),
  };
}
