import { badInput } from '@coffer/common';
import type { AuthModels } from '../model.js';
import type { AuthEvents } from '../events.js';
import { hashPassword, hashResetToken, normaliseEmail, randomToken } from './secrets.js';

const RESET_TTL_MS = 60 * 60 * 1000;
const INVALID = 'Invalid or expired reset token';

/**
 * Forgot/reset password: a random token mailed as a link, stored hashed, valid for one hour and
 * usable once. A reset also ends every session issued before it.
 */
export function passwordReset(deps: {
  models: Pick<AuthModels, 'User' | 'ResetToken'>;
  events: AuthEvents;
  publicUrl: string;
  now?: () => Date;
}) {
  const { User, ResetToken } = deps.models;
  const now = deps.now ?? (() => new Date());

  async function findValid(token: string) {
    return ResetToken.findOne({
      tokenHash: hashResetToken(token),
      usedAt: null,
      expiresAt: { $gt: now() },
    }).lean();
  }

  return {
    /** Answers the same whether or not the account exists; returns the token only for dev builds. */
    async request(email: string): Promise<{ token?: string; url?: string }> {
      const user = await User.findOne({ email: normaliseEmail(email) }).lean();
      if (!user) return {};
      const token = randomToken();
      const url = `${deps.publicUrl.replace(/\/$/, '')}/reset-password/${token}`;
      await ResetToken.create({
        userId: user._id,
        tokenHash: hashResetToken(token),
        expiresAt: new Date(now().getTime() + RESET_TTL_MS),
      });
      // Expired tokens are removed by query (no TTL indexes on FerretDB).
      await ResetToken.deleteMany({ expiresAt: { $lt: new Date(now().getTime() - RESET_TTL_MS) } });
      await deps.events.publish('auth.user.reset_requested', {
        userId: user._id.toString(),
        email: user.email,
        name: user.name ?? '',
        resetUrl: url,
      });
      return { token, url };
    },

    async verify(token: string): Promise<void> {
      if (!(await findValid(token))) throw badInput(INVALID);
    },

    async reset(token: string, password: string): Promise<void> {
      // Claim the token first, atomically, so two concurrent resets cannot both use it.
      const claimed = await ResetToken.findOneAndUpdate(
        { tokenHash: hashResetToken(token), usedAt: null, expiresAt: { $gt: now() } },
        { $set: { usedAt: now() } },
      ).lean();
      if (!claimed) throw badInput(INVALID);
      await User.updateOne(
        { _id: claimed.userId },
        { $set: { passwordHash: await hashPassword(password) }, $inc: { sessionVersion: 1 } },
      );
      await deps.events.publish('auth.user.password_changed', { userId: claimed.userId.toString() });
    },
  };
}
export type PasswordReset = ReturnType<typeof passwordReset>;
