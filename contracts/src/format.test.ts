import { formatBytes, formatFrequency, formatRetention } from './format.js';

describe('formatBytes', () => {
  it.each([
    [0, '0 Bytes'],
    [-5, '0 Bytes'],
    [Number.NaN, '0 Bytes'],
    [500, '500 Bytes'],
    [1023, '1023 Bytes'],
    [1024, '1 KB'],
    [1536, '1.5 KB'],
    [1234567, '1.18 MB'],
    [1024 ** 2 * 2.345, '2.35 MB'],
    [1024 ** 3, '1 GB'],
    [5 * 1024 ** 3, '5 GB'],
    [1024 ** 4 * 3, '3 TB'],
    [3 * 1024 ** 5, '3072 TB'],
  ])('%d → %s', (bytes, text) => expect(formatBytes(bytes)).toBe(text));

  it('takes fewer decimals when asked (chart ticks)', () => {
    expect(formatBytes(1024 ** 2 * 2.345, 0)).toBe('2 MB');
    expect(formatBytes(1536, 1)).toBe('1.5 KB');
  });
});

describe('plan settings', () => {
  it('names the plan frequencies and writes others in hours', () => {
    expect(formatFrequency(1)).toBe('hourly');
    expect(formatFrequency(24)).toBe('daily');
    expect(formatFrequency(168)).toBe('weekly');
    expect(formatFrequency(6)).toBe('6 h');
  });

  it('writes retention in days, months past 30 days, hours when not whole days', () => {
    expect(formatRetention(24)).toBe('1 day');
    expect(formatRetention(168)).toBe('7 days');
    expect(formatRetention(720)).toBe('30 days');
    expect(formatRetention(2160)).toBe('3 months');
    expect(formatRetention(4320)).toBe('6 months');
    expect(formatRetention(12)).toBe('12 h');
  });
});
