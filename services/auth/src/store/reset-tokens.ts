import type { AuthModels } from '../model.js';
import type { ResetTokenRecord, ResetTokenStore } from './types.js';
import type { Lean } from './shape.js';

function toToken(d: Lean): ResetTokenRecord {
  const t = d as Lean & Omit<ResetTokenRecord, 'id' | 'userId'> & { userId: { toString(): string } };
  return {
    id: d._id.toHexString(),
    userId: t.userId.toString(),
    tokenHash: t.tokenHash,
    // Links sent before the stamp existed match no account: they are void, as an hour has passed.
    accountStamp: t.accountStamp ?? '',
    expiresAt: t.expiresAt,
    usedAt: t.usedAt ?? null,
  };
}

export function resetTokenStore({ ResetToken }: Pick<AuthModels, 'ResetToken'>): ResetTokenStore {
  const valid = (tokenHash: string, now: Date) => ({ tokenHash, usedAt: null, expiresAt: { $gt: now } });
  return {
    async insert(token) {
      await ResetToken.create(token);
    },
    async findValid(tokenHash, now) {
      const d = await ResetToken.findOne(valid(tokenHash, now)).lean<Lean>();
      return d ? toToken(d) : null;
    },
    async claim(tokenHash, now) {
      // One conditional write: of two concurrent resets with the same token only one matches.
      const d = await ResetToken.findOneAndUpdate(
        valid(tokenHash, now),
        { $set: { usedAt: now } },
        { new: true },
      ).lean<Lean>();
      return d ? toToken(d) : null;
    },
    async removeExpired(before) {
      await ResetToken.deleteMany({ expiresAt: { $lt: before } });
    },
    async removeForUser(userId) {
      await ResetToken.deleteMany({ userId });
    },
  };
}
