import { badInput, type Logger } from '@coffer/common';
import type { AuthEvents } from '../events.js';
import type { AuthMail } from '../mail.js';
import type { ResetTokenStore, UserStore } from '../store/types.js';
import { hashPassword, hashResetToken, normaliseEmail, randomToken } from './secrets.js';

export const RESET_TTL_MS = 60 * 60 * 1000;
export const INVALID_RESET_TOKEN = 'Invalid or expired reset token';

/**
 * Forgot/reset password: a random token mailed as a link (through a call to notification, never an
 * event), stored hashed, valid for one hour and usable once. A reset ends every session issued
 * before it and voids the user's other pending links.
 */
export function passwordReset(deps: {
  users: Pick<UserStore, 'byEmail' | 'setPassword'>;
  tokens: ResetTokenStore;
  events: AuthEvents;
  mail: Pick<AuthMail, 'passwordReset'>;
  log: Pick<Logger, 'error'>;
  publicUrl: string;
  now?: () => Date;
}) {
  const { users, tokens } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /** Answers the same whether or not the account exists; returns the token only for dev builds. */
    async request(email: string): Promise<{ token?: string; url?: string }> {
      const user = await users.byEmail(normaliseEmail(email));
      if (!user) return {};
      const token = randomToken();
      const url = `${deps.publicUrl.replace(/\/$/, '')}/reset-password/${token}`;
      await tokens.insert({
        userId: user.id,
        tokenHash: hashResetToken(token),
        expiresAt: new Date(now().getTime() + RESET_TTL_MS),
      });
      // Expired tokens are removed by query (no TTL indexes on FerretDB).
      await tokens.removeExpired(new Date(now().getTime() - RESET_TTL_MS));
      // The answer must not depend on the account existing, so a mail that could not be handed
      // over is logged (never its link) rather than reported to the caller.
      await deps.mail
        .passwordReset({ userId: user.id, email: user.email, name: user.name, resetUrl: url })
        .catch((err: unknown) =>
          deps.log.error(
            { userId: user.id, err: err instanceof Error ? err.message : String(err) },
            'the password reset mail could not be handed to notification',
          ),
        );
      await deps.events.publish('auth.user.reset_requested', { userId: user.id });
      return { token, url };
    },

    async verify(token: string): Promise<void> {
      if (!(await tokens.findValid(hashResetToken(token), now()))) throw badInput(INVALID_RESET_TOKEN);
    },

    async reset(token: string, password: string): Promise<void> {
      // Claim the token first, atomically, so two concurrent resets cannot both use it.
      const claimed = await tokens.claim(hashResetToken(token), now());
      if (!claimed) throw badInput(INVALID_RESET_TOKEN);
      await users.setPassword(claimed.userId, await hashPassword(password), { endSessions: true });
      // Any other link mailed before this reset (perhaps to someone who read the mailbox) dies too.
      await tokens.removeForUser(claimed.userId);
      await deps.events.publish('auth.user.password_changed', { userId: claimed.userId, via: 'reset' });
    },
  };
}
export type PasswordReset = ReturnType<typeof passwordReset>;
