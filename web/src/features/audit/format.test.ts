import { formatDuration, formatExactCount } from './format';

describe('audit detail formatting', () => {
  it('writes run times in the largest units that keep them exact enough to read', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(42_300)).toBe('42 s');
    expect(formatDuration(185_000)).toBe('3 min 5 s');
    expect(formatDuration(120_000)).toBe('2 min');
    expect(formatDuration(3_720_000)).toBe('1 h 2 min');
    expect(formatDuration(7_200_000)).toBe('2 h');
  });

  it('writes document counts in full', () => {
    expect(formatExactCount(0)).toBe('0');
    expect(formatExactCount(1_234_567)).toBe('1,234,567');
  });
});
