import { formatBytes, formatTime } from './format';

describe('mail formatting', () => {
  it('writes sizes in human units', () => {
    expect(formatBytes(0)).toBe('0 Bytes');
    expect(formatBytes(1023)).toBe('1023 Bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(1234567)).toBe('1.18 MB');
    expect(formatBytes(2 * 1024 ** 4)).toBe('2 TB');
  });

  it('writes times in UTC and says so', () => {
    expect(formatTime(new Date('2025-01-05T14:03:09.000Z'))).toBe('Jan 5, 2025, 2:03 PM UTC');
    expect(formatTime(new Date('garbage'))).toBe('an unknown time');
  });
});
