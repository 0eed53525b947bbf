import {
  FREQUENCY_OPTIONS,
  RETENTION_OPTIONS,
  frequencyFromHours,
  isFrequencyDisabled,
  isRetentionDisabled,
} from './schedule';

describe('frequency', () => {
  it('maps received hours back to the select, anything else daily', () => {
    expect(frequencyFromHours(1)).toBe('hourly');
    expect(frequencyFromHours(24)).toBe('daily');
    expect(frequencyFromHours(168)).toBe('weekly');
    expect(frequencyFromHours(720)).toBe('monthly');
    expect(frequencyFromHours(12)).toBe('daily');
    expect(frequencyFromHours(undefined)).toBe('daily');
  });

  it('disables options more frequent than the plan allows', () => {
    const enabled = (limit: number | undefined) =>
      FREQUENCY_OPTIONS.filter((o) => !isFrequencyDisabled(o, limit)).map((o) => o.value);
    expect(enabled(1)).toEqual(['hourly', 'daily', 'weekly', 'monthly']);
    expect(enabled(24)).toEqual(['daily', 'weekly', 'monthly']);
    expect(enabled(168)).toEqual(['weekly', 'monthly']);
    expect(enabled(720)).toEqual(['monthly']);
    expect(enabled(undefined)).toHaveLength(4);
  });
});

describe('retention', () => {
  it('offers 3, 7, 14, 30, 90, 180 days as hours', () => {
    expect(RETENTION_OPTIONS.map((o) => o.hours)).toEqual([72, 168, 336, 720, 2160, 4320]);
  });

  it('disables options longer than the plan keeps backups', () => {
    const enabled = (limit: number | undefined) =>
      RETENTION_OPTIONS.filter((o) => !isRetentionDisabled(o, limit)).map((o) => o.days);
    expect(enabled(72)).toEqual([3]);
    expect(enabled(168)).toEqual([3, 7]);
    expect(enabled(720)).toEqual([3, 7, 14, 30]);
    expect(enabled(719)).toEqual([3, 7, 14]);
    expect(enabled(4320)).toEqual([3, 7, 14, 30, 90, 180]);
    expect(enabled(undefined)).toHaveLength(6);
  });
});
