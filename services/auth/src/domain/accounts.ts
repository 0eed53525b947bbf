import {
  ACCOUNT_INACTIVE_MESSAGE,
  badInput,
  conflict,
  forbidden,
  isDuplicateKeyError,
  notFound,
  unauthenticated,
  type Logger,
} from '@coffer/common';
import type { AuthEvents } from '../events.js';
import type { AuthMail } from '../mail.js';
import type { Role, UserPatch, UserRecord, UserStore } from '../store/types.js';
import type { Plans } from './plans.js';
import { hashPassword, normaliseEmail, randomToken, verifyPassword, type ApiKeyVault } from './secrets.js';
import type { TokenIssuer } from './tokens.js';

export const EMAIL_TAKEN = 'An account with this email already exists';

export interface AccountsDeps {
  users: Pick<UserStore, 'insert' | 'get' | 'byEmail' | 'byApiKeyHash' | 'update' | 'setPassword'>;
  plans: Pick<Plans, 'freePlan'>;
  vault: ApiKeyVault;
  issueToken: TokenIssuer;
  events: AuthEvents;
  mail: Pick<AuthMail, 'accountEmailChanged'>;
  log: Pick<Logger, 'error'>;
  /** When the account has two-factor sign-in on, the password alone gets a challenge, not a session. */
  secondFactor?: { isEnabled(userId: string): Promise<boolean>; challengeFor(user: UserRecord): string };
}

export const CURRENT_PASSWORD_REQUIRED = 'Current password is required to change your email';
export const CURRENT_PASSWORD_INCORRECT = 'Current password is incorrect';

/** Sign-up, sign-in, profile, password and API key of one user. */
export function accounts({ users, plans, vault, issueToken, events, mail, log, secondFactor }: AccountsDeps) {
  // A real hash of a random secret: unknown e-mails cost the same time as wrong passwords.
  const dummyHash = hashPassword(randomToken());

  async function load(userId: string): Promise<UserRecord> {
    const user = await users.get(userId);
    if (!user) throw notFound('User not found');
    return user;
  }

  async function create(input: { name: string; email: string; password: string; role?: Role }) {
    const plan = await plans.freePlan();
    const apiKey = vault.generate();
    try {
      return await users.insert({
        name: input.name.trim(),
        email: normaliseEmail(input.email),
        passwordHash: await hashPassword(input.password),
        role: input.role ?? 'user',
        plan: plan.id,
        apiKeyHash: vault.lookupHash(apiKey),
        apiKeySealed: vault.seal(apiKey),
      });
    } catch (err) {
      if (isDuplicateKeyError(err)) throw conflict(EMAIL_TAKEN);
      throw err;
    }
  }

  /** One write to the user; an e-mail another account has is a conflict. */
  async function update(userId: string, patch: UserPatch): Promise<UserRecord> {
    let updated: UserRecord | null;
    try {
      updated = await users.update(userId, patch);
    } catch (err) {
      if (isDuplicateKeyError(err)) throw conflict(EMAIL_TAKEN);
      throw err;
    }
    if (!updated) throw notFound('User not found');
    return updated;
  }

  async function checkPassword(user: UserRecord, given: string | undefined) {
    if (!given) throw badInput(CURRENT_PASSWORD_REQUIRED);
    if (!(await verifyPassword(user.passwordHash, given))) throw badInput(CURRENT_PASSWORD_INCORRECT);
  }

  return {
    load,

    async register(input: { name: string; email: string; password: string }) {
      const user = await create(input);
      await events.publish('auth.user.registered', { userId: user.id, email: user.email, name: user.name });
      return { user, token: issueToken(user) };
    },

    /** Creates the first admin from COFFER_ADMIN_EMAIL/PASSWORD unless that account exists. */
    async ensureAdmin(email: string, password: string): Promise<void> {
      const existing = await users.byEmail(normaliseEmail(email));
      if (existing) {
        if (existing.role !== 'admin') await users.update(existing.id, { role: 'admin' });
        return;
      }
      try {
        await create({ name: 'Administrator', email, password, role: 'admin' });
      } catch (err) {
        // Another replica created it first.
        if (!(err instanceof Error && err.message === EMAIL_TAKEN)) throw err;
      }
    },

    /**
     * Banned users still sign in: the answer tells the web app to show the suspended page. Inactive
     * ones do not: the gateway would refuse every call of the session anyway. With two-factor sign-in
     * on, the answer is a challenge for the second step instead of a session.
     */
    async login(
      email: string,
      password: string,
    ): Promise<
      | { user: UserRecord; token: string; challenge?: never }
      | { user: UserRecord; challenge: string; token?: never }
    > {
      const user = await users.byEmail(normaliseEmail(email));
      // Verify against a dummy hash when the account does not exist, so timing does not tell.
      const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash), password);
      if (!user || !ok) throw unauthenticated('Invalid email or password');
      // Checked after the password so the status is told only to whoever holds the account.
      if (user.status === 'inactive') throw forbidden(ACCOUNT_INACTIVE_MESSAGE, 'ACCOUNT_INACTIVE');
      if (secondFactor && (await secondFactor.isEnabled(user.id)))
        return { user, challenge: secondFactor.challengeFor(user) };
      return { user, token: issueToken(user) };
    },

    /**
     * A new e-mail needs the current password (a stolen session alone could otherwise redirect
     * the reset mails and take the account), and the previous address is told of the change. An
     * admin's change (`byAdmin`) needs no password; the previous address is told all the same.
     */
    async updateProfile(
      userId: string,
      patch: { name?: string; email?: string; currentPassword?: string },
      opts: { byAdmin?: boolean } = {},
    ) {
      const user = await load(userId);
      const set: { name?: string; email?: string } = {};
      if (patch.name !== undefined) set.name = patch.name.trim();
      const email = patch.email !== undefined ? normaliseEmail(patch.email) : undefined;
      if (email !== undefined && email !== user.email) {
        if (!opts.byAdmin) await checkPassword(user, patch.currentPassword);
        set.email = email;
      }
      if (Object.keys(set).length === 0) return user;
      const updated = await update(user.id, set);
      if (set.email) {
        await events.publish('auth.user.email_changed', { userId, email: set.email });
        // The change is made; a mail that cannot be handed over is logged, not turned into an error.
        await mail
          .accountEmailChanged({ userId, previousEmail: user.email, newEmail: set.email, name: updated.name })
          .catch((err: unknown) =>
            log.error(
              { userId, err: err instanceof Error ? err.message : String(err) },
              'the email-changed notice could not be handed to notification',
            ),
          );
      }
      return updated;
    },

    /**
     * Ends every session, as a reset does (whoever else holds a token is signed out); the caller's
     * own session continues with the fresh token returned.
     */
    async changePassword(userId: string, currentPassword: string, newPassword: string): Promise<string> {
      const user = await load(userId);
      if (!(await verifyPassword(user.passwordHash, currentPassword))) {
        throw badInput(CURRENT_PASSWORD_INCORRECT);
      }
      await users.setPassword(user.id, await hashPassword(newPassword), { endSessions: true });
      await events.publish('auth.user.password_changed', { userId, via: 'profile' });
      return issueToken(await load(userId));
    },

    /** The old key stops working at once: its lookup hash is replaced in the same write. */
    async regenerateApiKey(userId: string): Promise<string> {
      const user = await load(userId);
      const apiKey = vault.generate();
      await users.update(user.id, { apiKeyHash: vault.lookupHash(apiKey), apiKeySealed: vault.seal(apiKey) });
      await events.publish('auth.user.api_key_regenerated', { userId });
      return apiKey;
    },

    async resolveApiKey(apiKey: string): Promise<UserRecord> {
      const user = await users.byApiKeyHash(vault.lookupHash(apiKey));
      if (!user) throw unauthenticated('Invalid API key');
      return user;
    },
  };
}
export type Accounts = ReturnType<typeof accounts>;
