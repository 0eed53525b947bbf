import { isDuplicateKeyError } from '@coffer/common';
import type { AuthModels } from '../model.js';
import { isId, type SecuritySettingsStore, type TwoFactorRecord, type TwoFactorStore } from './types.js';

type TwoFactorDoc = Omit<TwoFactorRecord, 'userId'> & { userId: { toString(): string } };

const toRecord = (d: TwoFactorDoc): TwoFactorRecord => ({
  userId: d.userId.toString(),
  secretSealed: d.secretSealed,
  enabled: d.enabled ?? false,
  enabledAt: d.enabledAt ?? null,
  lastStep: d.lastStep ?? 0,
  recoveryCodes: d.recoveryCodes ?? [],
});

/** A step's claim is kept past any window it could be replayed in. */
const STEP_CLAIM_MS = 10 * 60_000;

/**
 * A code is claimed by a unique insert (second_factor_uses), so two requests racing with the same
 * code cannot both pass; the record's own fields follow.
 */
export function twoFactorStore({
  TwoFactor,
  SecondFactorUse,
}: Pick<AuthModels, 'TwoFactor' | 'SecondFactorUse'>): TwoFactorStore {
  /** True for the one caller whose insert of this key went in. */
  const claim = async (userId: string, key: string, expiresAt: Date | null) => {
    try {
      await SecondFactorUse.create({ userId, key, expiresAt });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  };
  const enabled = async (userId: string) =>
    isId(userId) ? TwoFactor.findOne({ userId, enabled: true }).lean<TwoFactorDoc>() : null;
  return {
    async get(userId) {
      if (!isId(userId)) return null;
      const d = await TwoFactor.findOne({ userId }).lean<TwoFactorDoc>();
      return d ? toRecord(d) : null;
    },
    async startEnrolment(userId, secretSealed) {
      if (!isId(userId)) return false;
      const pending = { secretSealed, enabled: false, enabledAt: null, lastStep: 0, recoveryCodes: [] };
      const res = await TwoFactor.updateOne({ userId, enabled: false }, { $set: pending });
      if (res.matchedCount === 1) return true;
      try {
        await TwoFactor.create({ userId, ...pending });
        return true;
      } catch {
        // The unique index: a record exists, and it is enabled (or another enrolment just began).
        return false;
      }
    },
    async enable(userId, secretSealed, { step, now }, recoveryCodes) {
      const res = await TwoFactor.updateOne(
        { userId, secretSealed, enabled: false },
        { $set: { enabled: true, enabledAt: now, lastStep: step, recoveryCodes } },
      );
      return res.modifiedCount === 1;
    },
    async useStep(userId, step) {
      const d = await enabled(userId);
      if (!d || (d.lastStep ?? 0) >= step) return false;
      const now = Date.now();
      await SecondFactorUse.deleteMany({ expiresAt: { $lt: new Date(now) } });
      if (!(await claim(userId, `step:${step}`, new Date(now + STEP_CLAIM_MS)))) return false;
      await TwoFactor.updateOne({ userId, lastStep: { $lt: step } }, { $set: { lastStep: step } });
      return true;
    },
    async useRecoveryCode(userId, codeHash) {
      const d = await enabled(userId);
      if (!d?.recoveryCodes?.includes(codeHash)) return false;
      if (!(await claim(userId, `recovery:${codeHash}`, null))) return false;
      await TwoFactor.updateOne({ userId }, { $pull: { recoveryCodes: codeHash } });
      return true;
    },
    async setRecoveryCodes(userId, codeHashes) {
      const res = await TwoFactor.updateOne(
        { userId, enabled: true },
        { $set: { recoveryCodes: codeHashes } },
      );
      return res.matchedCount === 1;
    },
    async remove(userId) {
      if (!isId(userId)) return;
      await TwoFactor.deleteOne({ userId });
      await SecondFactorUse.deleteMany({ userId });
    },
  };
}

const SETTINGS_ID = 'security';

export function securitySettingsStore({
  SecuritySettings,
}: Pick<AuthModels, 'SecuritySettings'>): SecuritySettingsStore {
  return {
    async get() {
      const d = await SecuritySettings.findById(SETTINGS_ID).lean<{ requireAdminTwoFactor?: boolean }>();
      return { requireAdminTwoFactor: d?.requireAdminTwoFactor ?? false };
    },
    async set(settings) {
      await SecuritySettings.updateOne({ _id: SETTINGS_ID }, { $set: settings }, { upsert: true });
    },
  };
}
