import {
  capitalize,
  formatAuditTimestamp,
  formatBackupDate,
  formatCount,
  formatDurationHours,
  formatLongDate,
  formatPercent,
  titleCase,
} from './format';
import { formatDbLimit, formatPrice, formatRetention, frequencyLabel, storageBarColor } from './plan';

describe('dates', () => {
  const d = new Date(2025, 0, 5, 14, 3, 9);
  it('audit timestamps read MMM d, yyyy HH:mm:ss', () =>
    expect(formatAuditTimestamp(d)).toBe('Jan 5, 2025 14:03:09'));
  it('backup dates read MMM d, yyyy h:mm a', () => {
    expect(formatBackupDate(d)).toBe('Jan 5, 2025 2:03 PM');
    expect(formatBackupDate(new Date(2025, 11, 31, 0, 7))).toBe('Dec 31, 2025 12:07 AM');
  });
  it('long dates are null for missing or bad values', () => {
    expect(formatLongDate(null)).toBeNull();
    expect(formatLongDate('not a date')).toBeNull();
    expect(formatLongDate(d.toISOString())).toEqual(expect.any(String));
  });
});

describe('formatDurationHours', () => {
  it.each([
    [0.5, '30 minutes'],
    [1, '1 hour'],
    [24, '24 hours'],
    [72, '3 days'],
    [168, '1 week'],
    [720, '4 weeks'],
    [2160, '13 weeks'],
    [8760, '12 months'],
    [105120, '4380 days'],
  ])('%d h → %s', (h, text) => expect(formatDurationHours(h)).toBe(text));
});

describe('small formatters', () => {
  it('abbreviates counts', () => {
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1K');
    expect(formatCount(1500)).toBe('1.5K');
    expect(formatCount(2_500_000)).toBe('2.5M');
  });
  it('shows one decimal for percentages', () => expect(formatPercent(42.25)).toBe('42.3%'));
  it('capitalises statuses and title-cases slugs', () => {
    expect(capitalize('in-progress')).toBe('In progress');
    expect(titleCase('getting-started')).toBe('Getting Started');
  });
});

describe('plan display', () => {
  it('prices', () => {
    expect(formatPrice(0)).toBe('Free');
    expect(formatPrice(9)).toBe('$9 /month');
  });
  it('limits', () => {
    expect(formatDbLimit(501)).toBe('Unlimited');
    expect(formatDbLimit(3)).toBe('3');
    expect(formatRetention(168)).toBe('7 days');
    expect(formatRetention(2160)).toBe('3 months');
    expect(frequencyLabel(1)).toBe('Hourly');
    expect(frequencyLabel(24)).toBe('Daily');
    expect(frequencyLabel(168)).toBe('Weekly');
  });
  it('storage bar colours: green ≤ 70, amber > 70, red > 90', () => {
    expect(storageBarColor(70)).toBe('green.500');
    expect(storageBarColor(70.1)).toBe('orange.400');
    expect(storageBarColor(90)).toBe('orange.400');
    expect(storageBarColor(90.1)).toBe('red.500');
  });
});
