import { followDumpOutput } from './backup.js';
import { ProgressTracker, splitNamespace, type Progress } from './progress.js';

// mongodump's stderr, as the pinned mongo-tools printed it (`--archive --db=par`, four workers)
// against a FerretDB holding big (30000), mid (20000), small (3), 'with space' (2) and empty: the
// tool counts every collection first (silent), starts four workers, prints bars every 3 s as a
// right-aligned grid (note the padded count of big) followed by an empty line, a last bar when a
// collection that had one ends, and "done dumping" lines.
const PARALLEL_DUMP = `2026-11-25T17:06:55.670+0000	writing par.big to archive on stdout
2026-11-25T17:06:55.671+0000	writing par.mid to archive on stdout
2026-11-25T17:06:55.681+0000	writing par.small to archive on stdout
2026-11-25T17:06:55.720+0000	writing par.with space to archive on stdout
2026-11-25T17:06:55.797+0000	done dumping par.small (3 documents)
2026-11-25T17:06:55.797+0000	writing par.empty to archive on stdout
2026-11-25T17:06:55.815+0000	done dumping par.empty (0 documents)
2026-11-25T17:06:56.505+0000	done dumping par.with space (2 documents)
2026-11-25T17:07:02.178+0000	[#################.......]  par.mid  14601/20000  (73.0%)
2026-11-25T17:07:02.178+0000	[#####...................]  par.big   7101/30000  (23.7%)
2026-11-25T17:07:02.178+0000	
2026-11-25T17:07:03.306+0000	[########################]  par.mid  20000/20000  (100.0%)
2026-11-25T17:07:03.306+0000	done dumping par.mid (20000 documents)
2026-11-25T17:07:04.901+0000	[########################]  par.big  30000/30000  (100.0%)
2026-11-25T17:07:04.901+0000	done dumping par.big (30000 documents)`.split('\n');

/** What collectionCounts found before the dump (statistics). */
function trackerFor(seen: Array<{ p: Progress; final: boolean }>, stats: Record<string, number>) {
  const t = new ProgressTracker((p, final) => seen.push({ p, final: final ?? false }));
  for (const [name, n] of Object.entries(stats)) t.expect(name, n, false);
  return t;
}

describe('ProgressTracker following a real mongodump', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('moves with the first documents dumped, names the collection being dumped, and ends at 100 %', () => {
    const seen: Array<{ p: Progress; final: boolean }> = [];
    const stats = { big: 30000, mid: 20000, small: 3, 'with space': 2, empty: 0 };
    const t = trackerFor(seen, stats);
    const follow = followDumpOutput(t, 'par');
    const upTo = (text: string) => {
      while (PARALLEL_DUMP.length && !PARALLEL_DUMP[0]!.includes(text)) follow(PARALLEL_DUMP.shift()!);
      follow(PARALLEL_DUMP.shift()!);
      return t.snapshot();
    };

    t.start();
    // While mongodump counts, nothing is dumped yet: the statistics are the (estimated) total.
    expect(seen[0]).toEqual({
      p: { current: 0, total: 50005, percentage: 0, collection: '', estimated: true },
      final: false,
    });
    // The first worker took big (longest first): that is the collection shown, not the last one
    // to start or to appear in the archive.
    expect(upTo('writing par.with space')).toMatchObject({ current: 0, collection: 'big' });
    expect(upTo('done dumping par.with space')).toMatchObject({
      current: 5,
      total: 50005,
      percentage: 0,
      collection: 'big',
      estimated: true,
    });
    expect(upTo('par.big   7101/30000')).toMatchObject({
      current: 5 + 14601 + 7101,
      total: 50005,
      percentage: 43.4,
      collection: 'big',
    });
    expect(upTo('done dumping par.mid')).toMatchObject({ current: 20005 + 7101, collection: 'big' });
    // The last collection done: every count comes from the dump, the total is no estimate.
    expect(upTo('done dumping par.big')).toEqual({
      current: 50005,
      total: 50005,
      percentage: 99.9,
      collection: 'big',
      estimated: false,
    });
    jest.advanceTimersByTime(1000);
    expect(seen.map((s) => s.final)).toEqual([false, false]);
    t.stop(true);
    t.stop(true); // the pipeline's end after the exit gate: no second final report
    expect(seen.slice(2)).toEqual([
      {
        p: { current: 50005, total: 50005, percentage: 100, collection: 'big', estimated: false },
        final: true,
      },
    ]);
    jest.advanceTimersByTime(5000);
    expect(seen).toHaveLength(3);
  });

  it('takes the dumped count over statistics that were wrong, without moving the bar back', () => {
    const seen: Array<{ p: Progress; final: boolean }> = [];
    // Statistics said 1000 and 10; the collections hold 600 and 40.
    const t = trackerFor(seen, { a: 1000, b: 10 });
    t.start();
    t.observe('b', 40); // more than expected: the total grows with the count
    jest.advanceTimersByTime(1000);
    expect(seen[1]!.p).toMatchObject({ current: 40, total: 1040, percentage: 3.8, estimated: true });
    t.finish('b', 40);
    t.observe('a', 300);
    jest.advanceTimersByTime(1000);
    expect(seen[2]!.p).toMatchObject({ current: 340, total: 1040, percentage: 32.6, collection: 'a' });
    t.finish('a', 600); // the total drops to the real count: the bar jumps ahead
    jest.advanceTimersByTime(1000);
    expect(seen[3]!.p).toMatchObject({ current: 640, total: 640, percentage: 99.9, estimated: false });
    t.stop(true);
    expect(seen[4]!.p).toMatchObject({ current: 640, total: 640, percentage: 100 });
    const percentages = seen.map((s) => s.p.percentage);
    expect([...percentages].sort((x, y) => x - y)).toEqual(percentages);
  });

  it('an exact expectation (a restore) is no estimate, and an empty database ends at 100 %', () => {
    const seen: Progress[] = [];
    const t = new ProgressTracker((p) => seen.push(p));
    t.expect('orders', 200, true);
    t.start();
    t.observe('orders', 50);
    jest.advanceTimersByTime(1000);
    expect(seen[1]).toEqual({
      current: 50,
      total: 200,
      percentage: 25,
      collection: 'orders',
      estimated: false,
    });

    const empty: Progress[] = [];
    const e = new ProgressTracker((p) => empty.push(p));
    e.start();
    e.stop(true);
    expect(empty.map((p) => p.percentage)).toEqual([0, 100]);
  });

  it('a failed job stops without a final 100 %, and a throwing listener is contained', () => {
    const t = new ProgressTracker(() => {
      throw new Error('listener bug');
    });
    t.expect('a', 10, false);
    expect(() => t.start()).not.toThrow();
    t.stop(false);
    t.stop(true);
    expect(t.lastReported?.percentage).toBe(0);
  });

  it('starting after the job stopped reports nothing (a backup whose collection check answered late)', () => {
    const seen: Progress[] = [];
    const t = new ProgressTracker((p) => seen.push(p));
    t.stop(false);
    t.start();
    expect(seen).toEqual([]);
  });

  it('ignores lines about other namespaces and splits namespaces at the first dot only', () => {
    const t = new ProgressTracker(undefined);
    const follow = followDumpOutput(t, 'par');
    follow('2026-11-25T17:07:02.178+0000\t[#####...................]  other.big   7101/30000  (23.7%)');
    follow('2026-11-25T17:07:02.178+0000\tFailed: error writing data for collection `par.big` to disk');
    follow('2026-11-25T17:07:02.178+0000\t            par.nocount  12');
    expect(t.snapshot()).toMatchObject({ current: 12, collection: 'nocount' });
    expect(splitNamespace('shop.dots.in.name')).toEqual({ db: 'shop', collection: 'dots.in.name' });
  });
});
