import { formatTime } from './format';

describe('mail formatting', () => {
  it('writes times in UTC and says so', () => {
    expect(formatTime(new Date('2025-01-05T14:03:09.000Z'))).toBe('Jan 5, 2025, 2:03 PM UTC');
    expect(formatTime(new Date('garbage'))).toBe('an unknown time');
  });
});
