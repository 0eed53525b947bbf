const MiB = 1024 * 1024;

/** S3's multipart limits. */
export const S3_LIMITS = {
  maxParts: 10_000,
  minPartSize: 5 * MiB,
  maxPartSize: 5 * 1024 * MiB,
  maxObjectSize: 5 * 1024 * 1024 * MiB,
} as const;

/**
 * Part sizes for an upload of unknown length: `base` for parts 1–1000, twice that for 1001–2000,
 * and so on (capped at S3's 5 GiB). Small blobs use small parts (little memory per upload), and
 * 10,000 parts still reach S3's 5 TiB object limit: with 8 MiB the plan holds about 7.8 TiB.
 */
export function partPlan(base = 8 * MiB, partsPerStep = 1000) {
  if (base < S3_LIMITS.minPartSize) throw new Error('part size below S3 minimum of 5 MiB');
  return {
    /** Size of part `n` (1-based). */
    sizeOf(n: number): number {
      return Math.min(base * 2 ** Math.floor((n - 1) / partsPerStep), S3_LIMITS.maxPartSize);
    },
    /** Most bytes the first `parts` parts hold. */
    capacity(parts: number = S3_LIMITS.maxParts): number {
      let total = 0;
      for (let n = 1; n <= parts; n++) total += this.sizeOf(n);
      return total;
    },
  };
}
export type PartPlan = ReturnType<typeof partPlan>;
