import { formatBytes } from './format';

describe('formatBytes', () => {
  it('writes sizes from Bytes to TB with at most two decimals', () => {
    expect(formatBytes(0)).toBe('0 Bytes');
    expect(formatBytes(1023)).toBe('1023 Bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(1234567)).toBe('1.18 MB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5 GB');
    expect(formatBytes(3 * 1024 ** 5)).toBe('3072 TB');
  });
});
