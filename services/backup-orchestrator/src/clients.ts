import type { GfsCounts } from '@coffer/contracts';
import { AppError, backupFrequency, grpcClient, type ServiceIdentity } from '@coffer/common';
import { auth, storage } from '@coffer/proto';

/** The plan limits the orchestrator enforces (hours and bytes, as auth keeps them). */
export interface PlanLimits {
  /** The plan's id (`free`, `pro`, …): labels the overdue gauge; absent in tests' plans. */
  id?: string;
  dbLimit: number;
  retentionLimit: number;
  storageLimit: number;
  frequencyLimit: number;
  /** The most GFS retention may keep per period. */
  gfsLimits: GfsCounts;
}

/** A plan that names no GFS limits (an auth older than GFS) allows none. */
const NO_GFS: GfsCounts = { hourly: 0, daily: 0, weekly: 0, monthly: 0, yearly: 0 };

/** Where a user's plan comes from (auth's GetUserPlan). */
export interface PlanSource {
  planOf(userId: string): Promise<PlanLimits>;
}

/** The storage call the orchestrator makes; tests hand in a fake. */
export interface BlobStore {
  /** Deletes the blob; a blob that is already gone counts as deleted. */
  delete(userId: string, blobId: string): Promise<void>;
}

const isNotFound = (err: unknown) => err instanceof AppError && err.kind === 'NOT_FOUND';

export function authPlans(address: string, identity: ServiceIdentity): PlanSource & { close(): void } {
  const client = grpcClient(auth.AuthServiceClient, address, { identity, callee: 'auth' });
  return {
    async planOf(userId) {
      const p = await client.getUserPlan({ userId }, { timeoutMs: 5_000 });
      return {
        id: p.id,
        dbLimit: p.dbLimit,
        retentionLimit: p.retentionLimit,
        storageLimit: p.storageLimit,
        frequencyLimit: backupFrequency.fromAnswer(p.frequencyLimit),
        gfsLimits: p.gfsLimits ?? NO_GFS,
      };
    },
    close: () => client.close(),
  };
}

/** Whether an account may still have work dispatched for it (auth's GetAccountState). */
export interface AccountSource {
  /** True for a banned or inactive account and for one that no longer exists. */
  suspended(userId: string): Promise<boolean>;
}

export function authAccounts(address: string, identity: ServiceIdentity): AccountSource & { close(): void } {
  const client = grpcClient(auth.AuthServiceClient, address, { identity, callee: 'auth' });
  return {
    async suspended(userId) {
      try {
        const s = await client.getAccountState({ userId }, { timeoutMs: 5_000 });
        return s.isBanned || s.status === auth.AccountStatus.ACCOUNT_STATUS_INACTIVE;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    },
    close: () => client.close(),
  };
}

export function storageBlobs(address: string, identity: ServiceIdentity): BlobStore & { close(): void } {
  const client = grpcClient(storage.StorageServiceClient, address, { identity, callee: 'storage' });
  return {
    async delete(userId, blobId) {
      try {
        await client.delete({ userId, blobId }, { timeoutMs: 30_000 });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
    close: () => client.close(),
  };
}

/**
 * Remembers plans for a short while. Only the background jobs use it (a scheduler or retention pass
 * would otherwise ask auth once per user per tick); user-facing calls read the plan fresh.
 */
export function cachedPlans(source: PlanSource, ttlMs: number, now = () => Date.now()): PlanSource {
  const cache = new Map<string, { plan: PlanLimits; until: number }>();
  return {
    async planOf(userId) {
      const hit = cache.get(userId);
      if (hit && hit.until > now()) return hit.plan;
      const plan = await source.planOf(userId);
      if (cache.size > 10_000) cache.clear();
      cache.set(userId, { plan, until: now() + ttlMs });
      return plan;
    },
  };
}
