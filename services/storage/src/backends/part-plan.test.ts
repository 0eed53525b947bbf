import { partPlan, S3_LIMITS } from './part-plan';

const MiB = 1024 * 1024;
const TiB = 1024 * 1024 * MiB;

describe('S3 part-size plan', () => {
  it('uses 8 MiB for the first 1000 parts, then doubles every 1000 parts', () => {
    const plan = partPlan();
    expect(plan.sizeOf(1)).toBe(8 * MiB);
    expect(plan.sizeOf(1000)).toBe(8 * MiB);
    expect(plan.sizeOf(1001)).toBe(16 * MiB);
    expect(plan.sizeOf(2000)).toBe(16 * MiB);
    expect(plan.sizeOf(2001)).toBe(32 * MiB);
    expect(plan.sizeOf(10_000)).toBe(4096 * MiB);
  });

  it('reaches S3’s 5 TiB object limit within 10,000 parts without a part above 5 GiB', () => {
    const plan = partPlan();
    expect(plan.capacity(S3_LIMITS.maxParts)).toBeGreaterThanOrEqual(5 * TiB);
    let total = 0;
    let parts = 0;
    while (total < 5 * TiB) {
      parts++;
      const size = plan.sizeOf(parts);
      expect(size).toBeGreaterThanOrEqual(S3_LIMITS.minPartSize);
      expect(size).toBeLessThanOrEqual(S3_LIMITS.maxPartSize);
      total += size;
    }
    expect(parts).toBeLessThanOrEqual(S3_LIMITS.maxParts);
  });

  it('keeps a typical backup in small parts: 50 GB fits in 8–32 MiB parts', () => {
    const plan = partPlan();
    expect(plan.capacity(3000)).toBeGreaterThan(50e9);
    expect(plan.sizeOf(3000)).toBe(32 * MiB);
  });

  it('works from the smallest allowed base part and refuses smaller', () => {
    expect(partPlan(5 * MiB).capacity()).toBeGreaterThanOrEqual(4.8 * TiB);
    expect(() => partPlan(4 * MiB)).toThrow('5 MiB');
  });
});
