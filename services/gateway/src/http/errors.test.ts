import { retryAfterSeconds } from './errors';

describe("a 429's Retry-After", () => {
  const now = Date.parse('2026-01-01T10:00:00Z');
  it('comes from the rate limiter, or from when the plan allows the next backup', () => {
    expect(retryAfterSeconds({ retryAfter: 12.2 }, now)).toBe(13);
    expect(retryAfterSeconds({ nextBackupAvailable: '2026-01-01T11:00:00.500Z' }, now)).toBe(3601);
    // A moment already past still asks for a second, never 0 or a negative number.
    expect(retryAfterSeconds({ nextBackupAvailable: '2026-01-01T09:00:00Z' }, now)).toBe(1);
  });

  it('is absent for limits that time does not lift', () => {
    expect(retryAfterSeconds({ dbLimit: 1 }, now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
  });
});
