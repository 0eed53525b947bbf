import { displayedProgress, isStaleLiveEvent, newerReading, progressCounts } from './progress';

describe('progress block readings', () => {
  // The last reading that reached the browser before the completion (issue 10: the completed
  // row's bar stood at 90.7 %).
  const lastReading = {
    current: 272_100,
    total: 300_000,
    percentage: 90.7,
    collection: 'events',
    estimated: true,
  };

  it('a completed job shows 100 %, whatever the last reading said', () => {
    expect(displayedProgress('completed', lastReading)).toMatchObject({
      current: 300_000,
      total: 300_000,
      percentage: 100,
    });
    // An agent that counted more than its statistics promised.
    expect(
      displayedProgress('completed', { current: 1200, total: 1000, percentage: 99.9, collection: 'a' }),
    ).toMatchObject({ current: 1200, total: 1200, percentage: 100 });
  });

  it('a running or failed job shows its reading, kept within 0–100', () => {
    expect(displayedProgress('in-progress', lastReading)).toEqual(lastReading);
    expect(displayedProgress('failed', lastReading).percentage).toBe(90.7);
    expect(displayedProgress('in-progress', { ...lastReading, percentage: 130 }).percentage).toBe(100);
    expect(displayedProgress('in-progress', { ...lastReading, percentage: Number.NaN }).percentage).toBe(0);
  });

  it('says "about" while the total is an estimate, and not once it is the real count', () => {
    expect(progressCounts(lastReading)).toBe('272.1K / about 300K documents');
    expect(progressCounts({ ...lastReading, estimated: false })).toBe('272.1K / 300K documents');
    // Older agents do not say: their totals are shown as they come.
    const { estimated: _, ...old } = lastReading;
    expect(progressCounts(old, 'items')).toBe('272.1K / 300K items');
    // A completed job's counts are exact once the last reading was.
    expect(progressCounts(displayedProgress('completed', { ...lastReading, estimated: false }))).toBe(
      '300K / 300K documents',
    );
  });

  it('a progress reading after the job ended is stale; the ending events are not', () => {
    expect(isStaleLiveEvent(true, 'in-progress')).toBe(true);
    expect(isStaleLiveEvent(false, 'in-progress')).toBe(false);
    expect(isStaleLiveEvent(true, 'completed')).toBe(false);
    expect(isStaleLiveEvent(true, 'failed')).toBe(false);
  });
});

describe('newerReading', () => {
  const at = (current: number, percentage: number) => ({ current, total: 1000, percentage, collection: 'a' });

  it('keeps the reading that is furthest along when they arrive out of order', () => {
    expect(newerReading(undefined, at(10, 1))).toEqual(at(10, 1));
    expect(newerReading(null, at(10, 1))).toEqual(at(10, 1));
    expect(newerReading(at(10, 1), at(500, 50))).toEqual(at(500, 50));
    expect(newerReading(at(1000, 100), at(990, 99))).toEqual(at(1000, 100));
    // Same count, a total that became exact: the new reading wins.
    expect(newerReading(at(500, 50), { ...at(500, 62.5), total: 800 })).toMatchObject({ total: 800 });
  });
});
