import { ProgressTracker, splitNamespace, type Progress } from './progress.js';

describe('ProgressTracker', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reports at start, every second, and 100% at the end', () => {
    const seen: Progress[] = [];
    let polled = 0;
    const t = new ProgressTracker(
      200,
      (p) => seen.push(p),
      () => polled++,
    );
    t.start();
    expect(seen).toEqual([{ current: 0, total: 200, percentage: 0, collection: '' }]);
    t.observe('orders', 50);
    t.setCollection('orders');
    jest.advanceTimersByTime(1000);
    expect(seen[1]).toEqual({ current: 50, total: 200, percentage: 25, collection: 'orders' });
    t.observe('orders', 40); // an older, lower reading never goes backwards
    t.observe('users', 150);
    jest.advanceTimersByTime(3000);
    expect(seen).toHaveLength(5);
    expect(seen[4]).toMatchObject({ current: 200, percentage: 99.9 });
    t.stop(true);
    expect(seen[5]).toMatchObject({ current: 200, total: 200, percentage: 100 });
    expect(polled).toBe(6);
    jest.advanceTimersByTime(5000);
    expect(seen).toHaveLength(6);
  });

  it('copes with estimates that were too low and with empty databases', () => {
    const seen: Progress[] = [];
    const t = new ProgressTracker(10, (p) => seen.push(p));
    t.start();
    t.observe('a', 15);
    jest.advanceTimersByTime(1000);
    expect(seen[1]!.percentage).toBe(99.9);
    t.stop(true);
    expect(seen[2]).toMatchObject({ current: 15, total: 15, percentage: 100 });

    const empty: Progress[] = [];
    const e = new ProgressTracker(0, (p) => empty.push(p));
    e.start();
    e.stop(true);
    expect(empty.map((p) => p.percentage)).toEqual([0, 100]);
  });

  it('a failed job stops without a final 100%, and a throwing listener is contained', () => {
    const t = new ProgressTracker(10, () => {
      throw new Error('listener bug');
    });
    expect(() => t.start()).not.toThrow();
    t.stop(false);
    expect(t.lastReported?.percentage).toBe(0);
  });

  it('splits namespaces at the first dot only', () => {
    expect(splitNamespace('shop.dots.in.name')).toEqual({ db: 'shop', collection: 'dots.in.name' });
  });
});
