import {
  applyProgress,
  averageSpeed,
  estimateFloor,
  estimateSeconds,
  etaLabel,
  formatEta,
  initialCountdown,
  initialEstimator,
  recordProgress,
  resyncCountdown,
  tickCountdown,
} from './estimate';

const progress = (current: number, total: number) => ({
  current,
  total,
  percentage: (current / total) * 100,
});

describe('recordProgress', () => {
  it('anchors on the first reading without a speed', () => {
    const s = recordProgress(initialEstimator(), 50, 1000);
    expect(s).toEqual({ anchor: { current: 50, at: 1000 }, speeds: [] });
  });

  it('ignores moves under 100 documents (same state object)', () => {
    const s = recordProgress(initialEstimator(), 0, 0);
    expect(recordProgress(s, 99, 5000)).toBe(s);
  });

  it('takes a sample from 100 documents on, keeps the last three', () => {
    let s = recordProgress(initialEstimator(), 0, 0);
    s = recordProgress(s, 100, 1000); // 100/s
    s = recordProgress(s, 300, 2000); // 200/s
    s = recordProgress(s, 600, 3000); // 300/s
    s = recordProgress(s, 1000, 4000); // 400/s
    expect(s.speeds).toEqual([200, 300, 400]);
    expect(s.anchor).toEqual({ current: 1000, at: 4000 });
  });

  it('starts over when the counter goes back', () => {
    let s = recordProgress(initialEstimator(), 0, 0);
    s = recordProgress(s, 500, 1000);
    s = recordProgress(s, 10, 2000);
    expect(s).toEqual({ anchor: { current: 10, at: 2000 }, speeds: [] });
  });
});

describe('averageSpeed', () => {
  it('weights the newest sample most (1, 2, 3)', () => {
    expect(averageSpeed([100, 200, 300])).toBeCloseTo((100 + 400 + 900) / 6);
    expect(averageSpeed([50])).toBe(50);
    expect(averageSpeed([])).toBeNull();
  });
});

describe('estimateSeconds', () => {
  const withSpeed = (speed: number) => ({ anchor: { current: 0, at: 0 }, speeds: [speed] });

  it('is unknown without a speed', () => {
    expect(estimateSeconds(initialEstimator(), progress(10, 100))).toBeNull();
  });

  it('multiplies remaining time by 4 below 50 %', () => {
    // 90,000 left at 100/s = 900 s, ×4
    expect(estimateSeconds(withSpeed(100), progress(10_000, 100_000))).toBe(3600);
  });

  it('×0.85 from 50 % and ×0.7 from 80 %', () => {
    expect(estimateSeconds(withSpeed(100), progress(50_000, 100_000))).toBe(Math.round(500 * 4 * 0.85));
    expect(estimateSeconds(withSpeed(100), progress(80_000, 100_000))).toBe(Math.round(200 * 4 * 0.7));
  });

  it('never goes under the floor for the progress reached', () => {
    const fast = withSpeed(1_000_000);
    expect(estimateSeconds(fast, progress(10, 100))).toBe(60);
    expect(estimateSeconds(fast, progress(84, 100))).toBe(60);
    expect(estimateSeconds(fast, progress(85, 100))).toBe(48);
    expect(estimateSeconds(fast, progress(90, 100))).toBe(36);
    expect(estimateSeconds(fast, progress(95, 100))).toBe(24);
    expect(estimateSeconds(fast, progress(98, 100))).toBe(0);
  });

  it('floors by band', () => {
    expect([0, 84.9, 85, 89.9, 90, 94.9, 95, 97.9, 98, 100].map(estimateFloor)).toEqual([
      60, 60, 48, 48, 36, 36, 24, 24, 0, 0,
    ]);
  });
});

describe('countdown', () => {
  it('starts at the first estimate and resyncs only beyond 15 s', () => {
    expect(resyncCountdown(null, 120)).toBe(120);
    expect(resyncCountdown(100, 115)).toBe(100);
    expect(resyncCountdown(100, 85)).toBe(100);
    expect(resyncCountdown(100, 116)).toBe(116);
    expect(resyncCountdown(100, 84)).toBe(84);
    expect(resyncCountdown(100, null)).toBe(100);
  });

  it('ticks down by one second and stops at 0', () => {
    expect(tickCountdown(2)).toBe(1);
    expect(tickCountdown(0)).toBe(0);
    expect(tickCountdown(null)).toBeNull();
  });

  it('recomputes only when a speed sample was taken', () => {
    let c = applyProgress(initialCountdown(), progress(0, 100_000), 0);
    expect(c.seconds).toBeNull();
    c = applyProgress(c, progress(1000, 100_000), 1000); // 1000/s, 99 s ×4 = 396 s
    expect(c.seconds).toBe(396);
    const same = applyProgress(c, progress(1050, 100_000), 1500);
    expect(same).toBe(c);
    // 10 s of ticking, then a similar estimate: the countdown keeps its own value
    let ticked: typeof c = { ...c, seconds: 386 };
    ticked = applyProgress(ticked, progress(11_000, 100_000), 11_000); // 89,000 / 1000 × 4 = 356 s
    expect(ticked.seconds).toBe(356); // differs by 30 s: resync
    const near = applyProgress({ ...ticked, seconds: 346 }, progress(21_000, 100_000), 21_000); // 316
    expect(near.seconds).toBe(316);
  });
});

describe('formatEta', () => {
  it.each([
    [0, '0s'],
    [45, '45s'],
    [60, '1m 00s'],
    [125, '2m 05s'],
    [3780, '1h 03m'],
  ])('%d s → %s', (s, text) => expect(formatEta(s)).toBe(text));
});

describe('etaLabel', () => {
  it('estimates first, then counts down, and never says "About 0s remaining"', () => {
    expect(etaLabel(null)).toBe('Estimating time remaining...');
    expect(etaLabel(125)).toBe('About 2m 05s remaining');
    expect(etaLabel(1)).toBe('About 1s remaining');
    expect(etaLabel(0)).toBe('Finishing up...');
    expect(etaLabel(tickCountdown(tickCountdown(1)))).toBe('Finishing up...');
    // The final reading arrives before the countdown took it in: no time left is claimed.
    expect(etaLabel(36, 100)).toBe('Finishing up...');
    expect(etaLabel(null, 100)).toBe('Finishing up...');
    expect(etaLabel(36, 92.9)).toBe('About 36s remaining');
  });
});
