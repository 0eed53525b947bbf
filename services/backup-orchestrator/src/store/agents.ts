import { Types } from 'mongoose';
import { isDuplicateKeyError } from '@coffer/common';
import type { OrchestratorModels } from '../model.js';
import type { AgentRecord, AgentRegistration, AgentStore } from './types.js';
import { withId, type Lean } from './shape.js';

const shape = (d: Lean | null) => (d ? withId<AgentRecord>(d) : null);

export function agentStore({ Agent }: Pick<OrchestratorModels, 'Agent'>): AgentStore {
  const validId = (id: string) => Types.ObjectId.isValid(id) && id.length === 24;

  const registered = (reg: AgentRegistration, now: Date) => {
    const { userId: _u, instanceId: _i, ...fields } = reg;
    return {
      ...fields,
      connected: true,
      lastSeen: now,
      disconnectedAt: null,
      offlineReason: null,
      retired: false,
    };
  };

  async function upsert(reg: AgentRegistration, now: Date) {
    const { userId, instanceId } = reg;
    // The pre-image tells whether the instance is new (null) or was retired before this registration.
    const before = await Agent.findOneAndUpdate(
      { userId, instanceId },
      { $set: registered(reg, now), $setOnInsert: { createdAt: now } },
      { upsert: true, new: false },
    ).lean<Lean>();
    const after = await Agent.findOne({ userId, instanceId }).lean<Lean>();
    return { agent: shape(after)!, isNew: !before || before.retired === true };
  }

  return {
    async register(reg, now, known) {
      // A known instance is updated by _id, the one filter FerretDB answers without reading the
      // whole collection: agents reconnecting together after a gateway restart re-register at once.
      if (known && known.userId === reg.userId && known.instanceId === reg.instanceId && validId(known.id)) {
        const after = await Agent.findOneAndUpdate(
          { _id: known.id },
          { $set: registered(reg, now) },
          { new: true },
        ).lean<Lean>();
        if (after) return { agent: shape(after)!, isNew: known.retired };
      }
      try {
        return await upsert(reg, now);
      } catch (err) {
        // Two registrations of a new instance raced; the loser's upsert hit the unique index.
        if (isDuplicateKeyError(err)) return upsert(reg, now);
        throw err;
      }
    },
    async get(agentId) {
      if (!validId(agentId)) return null;
      return shape(await Agent.findById(agentId).lean<Lean>());
    },
    async findInstance(userId, instanceId) {
      return shape(await Agent.findOne({ userId, instanceId }).lean<Lean>());
    },
    async list(userId) {
      const docs = await Agent.find({ userId, retired: false }).sort({ createdAt: 1, _id: 1 }).lean<Lean[]>();
      return docs.map((d) => withId<AgentRecord>(d));
    },
    async heartbeat(userId, agentId, now, databases) {
      if (!validId(agentId)) return null;
      // Every agent beats every 15 s: read and written by _id alone, the one filter FerretDB answers
      // without reading the whole collection, with the owner and retirement checked in between.
      const current = await Agent.findById(agentId, { userId: 1, retired: 1 }).lean<Lean>();
      if (!current || current.userId !== userId || current.retired) return null;
      const set: Record<string, unknown> = {
        lastSeen: now,
        connected: true,
        disconnectedAt: null,
        offlineReason: null,
      };
      if (databases) set.databases = databases;
      const after = shape(
        await Agent.findOneAndUpdate({ _id: agentId }, { $set: set }, { new: true }).lean<Lean>(),
      );
      return after && !after.retired ? after : null; // retired in between: as if it had been before
    },
    async disconnect(userId, agentId, now, reason) {
      if (!validId(agentId)) return null;
      return shape(
        await Agent.findOneAndUpdate(
          // A reset (retired) agent's old socket closing is not news: the user replaced it.
          { _id: agentId, userId, connected: true, retired: false },
          { $set: { connected: false, disconnectedAt: now, offlineReason: reason ?? null } },
          { new: false },
        ).lean<Lean>(),
      );
    },
    async retire(userId, agentId) {
      if (!validId(agentId)) return null;
      return shape(
        await Agent.findOneAndUpdate(
          { _id: agentId, userId, retired: false },
          { $set: { retired: true } },
          { new: true },
        ).lean<Lean>(),
      );
    },
    async remove(agentId, userId) {
      if (!validId(agentId)) return false;
      const res = await Agent.deleteOne(userId ? { _id: agentId, userId } : { _id: agentId });
      return res.deletedCount === 1;
    },
    async removeByUser(userId) {
      await Agent.deleteMany({ userId });
    },
  };
}
