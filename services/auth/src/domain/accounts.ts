import { Types } from 'mongoose';
import { badInput, conflict, isDuplicateKeyError, notFound, unauthenticated } from '@coffer/common';
import type { AuthModels, UserDoc } from '../model.js';
import type { AuthEvents } from '../events.js';
import type { Plans } from './plans.js';
import { hashPassword, normaliseEmail, randomToken, verifyPassword, type ApiKeyVault } from './secrets.js';
import type { TokenIssuer } from './tokens.js';

const EMAIL_TAKEN = 'An account with this email already exists';

export interface AccountsDeps {
  models: Pick<AuthModels, 'User'>;
  plans: Pick<Plans, 'freePlan'>;
  vault: ApiKeyVault;
  issueToken: TokenIssuer;
  events: AuthEvents;
}

/** Sign-up, sign-in, profile, password and API key of one user. */
export function accounts({ models, plans, vault, issueToken, events }: AccountsDeps) {
  const { User } = models;
  // A real hash of a random secret: unknown e-mails cost the same time as wrong passwords.
  const dummyHash = hashPassword(randomToken());

  async function load(userId: string): Promise<UserDoc> {
    if (!Types.ObjectId.isValid(userId)) throw notFound('User not found');
    const user = await User.findById(userId).lean<UserDoc>();
    if (!user) throw notFound('User not found');
    return user;
  }

  async function create(input: { name: string; email: string; password: string; role?: 'user' | 'admin' }) {
    const plan = await plans.freePlan();
    const apiKey = vault.generate();
    try {
      const doc = await User.create({
        name: input.name.trim(),
        email: normaliseEmail(input.email),
        passwordHash: await hashPassword(input.password),
        role: input.role ?? 'user',
        plan: plan._id,
        apiKeyHash: vault.lookupHash(apiKey),
        apiKeySealed: vault.seal(apiKey),
      });
      return doc.toObject() as UserDoc;
    } catch (err) {
      if (isDuplicateKeyError(err)) throw conflict(EMAIL_TAKEN);
      throw err;
    }
  }

  return {
    load,

    async register(input: { name: string; email: string; password: string }) {
      const user = await create(input);
      await events.publish('auth.user.registered', {
        userId: user._id.toString(),
        email: user.email,
        name: user.name,
      });
      return { user, token: issueToken(user) };
    },

    /** Creates the first admin from COFFER_ADMIN_EMAIL/PASSWORD unless that account exists. */
    async ensureAdmin(email: string, password: string): Promise<void> {
      const existing = await User.findOne({ email: normaliseEmail(email) }).lean();
      if (existing) {
        if (existing.role !== 'admin')
          await User.updateOne({ _id: existing._id }, { $set: { role: 'admin' } });
        return;
      }
      try {
        await create({ name: 'Administrator', email, password, role: 'admin' });
      } catch (err) {
        // Another replica created it first.
        if (!(err instanceof Error && err.message === EMAIL_TAKEN)) throw err;
      }
    },

    /** Banned users still sign in: the answer tells the web app to show the suspended page. */
    async login(email: string, password: string) {
      const user = await User.findOne({ email: normaliseEmail(email) }).lean<UserDoc>();
      // Verify against a dummy hash when the account does not exist, so timing does not tell.
      const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash), password);
      if (!user || !ok) throw unauthenticated('Invalid email or password');
      return { user, token: issueToken(user) };
    },

    async updateProfile(userId: string, patch: { name?: string; email?: string }) {
      const user = await load(userId);
      const set: Record<string, string> = {};
      if (patch.name !== undefined) set.name = patch.name.trim();
      const email = patch.email !== undefined ? normaliseEmail(patch.email) : undefined;
      if (email !== undefined && email !== user.email) set.email = email;
      if (Object.keys(set).length === 0) return user;
      let updated: UserDoc | null;
      try {
        updated = await User.findOneAndUpdate(
          { _id: user._id },
          { $set: set },
          { new: true },
        ).lean<UserDoc>();
      } catch (err) {
        if (isDuplicateKeyError(err)) throw conflict(EMAIL_TAKEN);
        throw err;
      }
      if (!updated) throw notFound('User not found');
      if (set.email) await events.publish('auth.user.email_changed', { userId, email: set.email });
      return updated;
    },

    async changePassword(userId: string, currentPassword: string, newPassword: string) {
      const user = await load(userId);
      if (!(await verifyPassword(user.passwordHash, currentPassword))) {
        throw badInput('Current password is incorrect');
      }
      await User.updateOne({ _id: user._id }, { $set: { passwordHash: await hashPassword(newPassword) } });
      await events.publish('auth.user.password_changed', { userId });
    },

    /** The old key stops working at once: its lookup hash is replaced in the same write. */
    async regenerateApiKey(userId: string): Promise<string> {
      const user = await load(userId);
      const apiKey = vault.generate();
      await User.updateOne(
        { _id: user._id },
        { $set: { apiKeyHash: vault.lookupHash(apiKey), apiKeySealed: vault.seal(apiKey) } },
      );
      await events.publish('auth.user.api_key_regenerated', { userId });
      return apiKey;
    },

    async resolveApiKey(apiKey: string): Promise<UserDoc> {
      const user = await User.findOne({ apiKeyHash: vault.lookupHash(apiKey) }).lean<UserDoc>();
      if (!user) throw unauthenticated('Invalid API key');
      return user;
    },
  };
}
export type Accounts = ReturnType<typeof accounts>;
