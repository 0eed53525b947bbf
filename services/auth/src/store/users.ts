import { olderThan } from '@coffer/common';
import type { AuthModels } from '../model.js';
import { isId, type UserRecord, type UserStore } from './types.js';
import type { Lean } from './shape.js';

/** Documents written before a field existed read as its default, so the domain sees whole records. */
function toUser(d: Lean): UserRecord {
  const u = d as Lean & Omit<UserRecord, 'id' | 'plan'> & { plan: { toString(): string } };
  return {
    id: d._id.toHexString(),
    email: u.email,
    name: u.name ?? '',
    passwordHash: u.passwordHash,
    role: u.role ?? 'user',
    status: u.status ?? 'active',
    plan: u.plan.toString(),
    apiKeyHash: u.apiKeyHash,
    apiKeySealed: u.apiKeySealed,
    isBanned: u.isBanned ?? false,
    banReason: u.banReason ?? null,
    bannedAt: u.bannedAt ?? null,
    sessionVersion: u.sessionVersion ?? 0,
    createdAt: u.createdAt ?? new Date(0),
  };
}

export function userStore({ User }: Pick<AuthModels, 'User'>): UserStore {
  const one = (d: Lean | null) => (d ? toUser(d) : null);
  return {
    async insert(user) {
      const doc = await User.create(user);
      return toUser(doc.toObject() as unknown as Lean);
    },
    async get(id) {
      return isId(id) ? one(await User.findById(id).lean<Lean>()) : null;
    },
    async byEmail(email) {
      return one(await User.findOne({ email }).lean<Lean>());
    },
    async byApiKeyHash(apiKeyHash) {
      return one(await User.findOne({ apiKeyHash }).lean<Lean>());
    },
    async list(page) {
      // No equality narrows an admin's list: on FerretDB-PG this reads every user (architecture.md).
      const query = User.find(olderThan(page?.before)).sort({ createdAt: -1, _id: -1 });
      if (page) query.limit(page.limit);
      return (await query.lean<Lean[]>()).map(toUser);
    },
    async update(id, patch) {
      if (!isId(id)) return null;
      return one(await User.findOneAndUpdate({ _id: id }, { $set: patch }, { new: true }).lean<Lean>());
    },
    async setPlan(id, planId) {
      if (!isId(id)) return null;
      const before = await User.findOneAndUpdate({ _id: id }, { $set: { plan: planId } }).lean();
      return before ? before.plan.toString() : null;
    },
    async setPassword(id, passwordHash, { endSessions }) {
      if (!isId(id)) return false;
      const res = await User.updateOne(
        { _id: id },
        { $set: { passwordHash }, ...(endSessions ? { $inc: { sessionVersion: 1 } } : {}) },
      );
      return res.matchedCount === 1;
    },
    async remove(id) {
      if (!isId(id)) return false;
      return (await User.deleteOne({ _id: id })).deletedCount === 1;
    },
  };
}
