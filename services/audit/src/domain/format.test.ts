import { formatFrequency, formatRetention } from './format';

describe('audit value formatting', () => {
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
    expect(formatRetention(12)).toBe('12 h');
  });
});
