import { createHash } from 'node:crypto';
import { badInput, type Logger } from '@coffer/common';
import type { AuthEvents } from '../events.js';
import type { AuthMail } from '../mail.js';
import type { ResetTokenRecord, ResetTokenStore, UserRecord, UserStore } from '../store/types.js';
import { hashPassword, hashResetToken, normaliseEmail, randomToken } from './secrets.js';

export const RESET_TTL_MS = 60 * 60 * 1000;
export const INVALID_RESET_TOKEN = 'Invalid or expired reset token';

/**
 * What a link is bound to: the account's e-mail address and password when it was sent. A password
 * changed or an address changed since (by the user or an admin) voids every link sent before: the
 * mailbox that got it may no longer be the owner's, and a changed password was the owner's answer.
 */
export const accountStamp = (user: Pick<UserRecord, 'email' | 'passwordHash'>): string =>
  createHash('sha256').update(`${user.email}\n${user.passwordHash}`).digest('hex');

/**
 * Forgot/reset password: a random token mailed as a link (through a call to notification, never an
 * event), stored hashed, valid for one hour and usable once, and only while the account's e-mail
 * and password are what they were when it was sent. A reset ends every session issued before it
 * and voids the user's other pending links.
 */
export function passwordReset(deps: {
  users: Pick<UserStore, 'byEmail' | 'get' | 'setPassword'>;
  tokens: ResetTokenStore;
  events: AuthEvents;
  mail: Pick<AuthMail, 'passwordReset'>;
  log: Pick<Logger, 'error'>;
  publicUrl: string;
  now?: () => Date;
}) {
  const { users, tokens } = deps;
  const now = deps.now ?? (() => new Date());

  /** The token's account, unless its e-mail or password changed since the link was sent. */
  async function stillBound(token: ResetTokenRecord | null): Promise<UserRecord> {
    const user = token && (await users.get(token.userId));
    if (!token || !user || accountStamp(user) !== token.accountStamp) throw badInput(INVALID_RESET_TOKEN);
    return user;
  }

  const pending = new Set<Promise<void>>();
  function track(work: Promise<void>): Promise<void> {
    pending.add(work);
    void work.finally(() => pending.delete(work));
    return work;
  }

  /** The part of a request the answer does not wait for; failures are logged, never the link. */
  async function send(user: UserRecord, token: string, url: string): Promise<void> {
    const failed = (what: string) => (err: unknown) =>
      deps.log.error({ userId: user.id, err: err instanceof Error ? err.message : String(err) }, what);
    try {
      await tokens.insert({
        userId: user.id,
        tokenHash: hashResetToken(token),
        accountStamp: accountStamp(user),
        expiresAt: new Date(now().getTime() + RESET_TTL_MS),
      });
    } catch (err) {
      failed('the password reset link could not be stored; no mail was sent')(err);
      return;
    }
    // Expired tokens are removed by query (no TTL indexes on FerretDB).
    await tokens
      .removeExpired(new Date(now().getTime() - RESET_TTL_MS))
      .catch(failed('expired reset links could not be removed'));
    await deps.mail
      .passwordReset({ userId: user.id, email: user.email, name: user.name, resetUrl: url })
      .catch(failed('the password reset mail could not be handed to notification'));
    await deps.events
      .publish('auth.user.reset_requested', { userId: user.id })
      .catch(failed('auth.user.reset_requested could not be published'));
  }

  return {
    /**
     * Looks the address up and answers; for an account, stores the token and hands the mail to
     * notification after the answer (`handedOff`, which never rejects). Only the lookup is awaited,
     * so the answer takes as long for an unknown address as for a known one. The token and link are
     * returned for dev builds, which wait for `handedOff` before they show them.
     */
    async request(email: string): Promise<{ token?: string; url?: string; handedOff: Promise<void> }> {
      const user = await users.byEmail(normaliseEmail(email));
      if (!user) return { handedOff: Promise.resolve() };
      const token = randomToken();
      const url = `${deps.publicUrl.replace(/\/$/, '')}/reset-password/${token}`;
      const handedOff = track(send(user, token, url));
      return { token, url, handedOff };
    },

    /** Resolves once every request's mail has been handed off (graceful shutdown). */
    async settled(): Promise<void> {
      await Promise.allSettled([...pending]);
    },

    async verify(token: string): Promise<void> {
      await stillBound(await tokens.findValid(hashResetToken(token), now()));
    },

    async reset(token: string, password: string): Promise<void> {
      // Claim the token first, atomically, so two concurrent resets cannot both use it.
      const user = await stillBound(await tokens.claim(hashResetToken(token), now()));
      await users.setPassword(user.id, await hashPassword(password), { endSessions: true });
      // Any other link mailed before this reset (perhaps to someone who read the mailbox) dies too.
      await tokens.removeForUser(user.id);
      await deps.events.publish('auth.user.password_changed', { userId: user.id, via: 'reset' });
    },
  };
}
export type PasswordReset = ReturnType<typeof passwordReset>;
