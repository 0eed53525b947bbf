import type { GfsCounts } from '@coffer/contracts';
import type { PlanSource } from '../clients.js';
import type { BackupStore, VerificationStore } from '../store/types.js';
import { gfsVerdicts, type RetentionVerdict } from './gfs.js';
import type { RetentionInForce } from './retention-in-force.js';
import { checkGfsBounds } from './settings.js';
import { DEFAULT_SETTINGS } from './rules.js';

/**
 * What a GFS setting would do to the user's current backups, before it is saved: the verdicts of
 * the very function the retention sweep applies (domain/gfs.ts), newest first. Counts beyond the
 * plan are refused as a save would refuse them.
 */
export function retentionPreview(deps: {
  backups: Pick<BackupStore, 'ofUser'>;
  verifications: Pick<VerificationStore, 'verifiedBackupIds'>;
  plans: PlanSource;
  retentionOf: RetentionInForce;
  now: () => Date;
}) {
  return async (userId: string, counts: GfsCounts): Promise<RetentionVerdict[]> => {
    checkGfsBounds(counts, (await deps.plans.planOf(userId)).gfsLimits);
    const hours = (await deps.retentionOf(userId)) ?? DEFAULT_SETTINGS.retention;
    const verified = await deps.verifications.verifiedBackupIds(userId);
    return gfsVerdicts(
      await deps.backups.ofUser(userId),
      { counts, failedKeepHours: hours, verified },
      deps.now(),
    );
  };
}
export type RetentionPreview = ReturnType<typeof retentionPreview>;
