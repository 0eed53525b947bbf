import { PassThrough } from 'node:stream';
import {
  LineTail,
  parseDumpDone,
  parseDumpStart,
  parseProgressLine,
  parseRestoreDone,
  parseRestoreSummary,
  stripTimestamp,
} from './tool-output.js';

// Lines as printed by the pinned mongo-tools build against FerretDB.
const T = '2026-11-22T21:37:25.635+0000\t';

describe('tool output parsing', () => {
  it('strips the timestamp', () => {
    expect(stripTimestamp(`${T}writing shop.c0 to archive on stdout`)).toBe(
      'writing shop.c0 to archive on stdout',
    );
    expect(stripTimestamp('2026-11-22T21:37:25Z\tx')).toBe('x');
  });

  it('reads mongodump progress bars, namespaces with spaces and dots included', () => {
    expect(parseProgressLine(`${T}[###############.........]  shop.c0  12601/20000  (63.0%)`)).toEqual({
      ns: 'shop.c0',
      current: 12601,
      total: 20000,
    });
    expect(parseProgressLine(`${T}[........................]  shop.with space  0/7  (0.0%)`)).toEqual({
      ns: 'shop.with space',
      current: 0,
      total: 7,
    });
    expect(parseProgressLine(`${T}[####....................]  shop.dots.in.name  1/6  (16.7%)`)).toEqual({
      ns: 'shop.dots.in.name',
      current: 1,
      total: 6,
    });
    expect(
      parseProgressLine(`${T}[#####...................]  shop.c0  1.2MB/3.4MB  (35.3%)`),
    ).toBeUndefined();
    expect(parseProgressLine(`${T}done dumping shop.c0 (20000 documents)`)).toBeUndefined();
  });

  it('reads the grid mongodump prints for several collections at once (real output)', () => {
    // Columns are right-aligned to the widest cell; an empty line follows the group.
    const grid = [
      '2026-11-25T17:07:02.178+0000\t[#################.......]  par.mid  14601/20000  (73.0%)',
      '2026-11-25T17:07:02.178+0000\t[#####...................]  par.big   7101/30000  (23.7%)',
      '2026-11-25T17:07:02.178+0000\t',
    ];
    expect(grid.map((l) => parseProgressLine(l))).toEqual([
      { ns: 'par.mid', current: 14601, total: 20000 },
      { ns: 'par.big', current: 7101, total: 30000 },
      undefined,
    ]);
    expect(
      parseProgressLine(
        '2026-11-25T17:05:33.131+0000\t[########################]  shop.big  100000/100000  (100.0%)',
      ),
    ).toEqual({ ns: 'shop.big', current: 100000, total: 100000 });
  });

  it('reads a bar without total only for the database being dumped', () => {
    // mongo-tools renders `name  count` when the collection was expected to be empty.
    expect(parseProgressLine(`${T}          shop.late  120`, 'shop')).toEqual({
      ns: 'shop.late',
      current: 120,
      total: undefined,
    });
    expect(parseProgressLine(`${T}shop.with space  3`, 'shop')).toMatchObject({ ns: 'shop.with space' });
    expect(parseProgressLine(`${T}shop.late  120`)).toBeUndefined();
    expect(parseProgressLine(`${T}retrying in 5`, 'shop')).toBeUndefined();
    expect(parseProgressLine(`${T}shop.  5`, 'shop')).toBeUndefined();
  });

  it('reads the line that says a worker started a collection', () => {
    expect(
      parseDumpStart('2026-11-25T17:06:55.720+0000\twriting par.with space to archive on stdout'),
    ).toEqual({
      ns: 'par.with space',
    });
    expect(parseDumpStart(`${T}writing captured oplog to archive`)).toBeUndefined();
  });

  it('reads per-collection results and the restore summary', () => {
    expect(parseDumpDone(`${T}done dumping shop.with space (1 document)`)).toEqual({
      ns: 'shop.with space',
      documents: 1,
    });
    expect(parseRestoreDone(`${T}finished restoring shop2.c0 (20000 documents, 0 failures)`)).toEqual({
      ns: 'shop2.c0',
      documents: 20000,
      failures: 0,
    });
    expect(parseRestoreDone(`${T}finished restoring shop2.x (1 document, 1 failure)`)).toEqual({
      ns: 'shop2.x',
      documents: 1,
      failures: 1,
    });
    expect(
      parseRestoreSummary(`${T}60001 document(s) restored successfully. 2 document(s) failed to restore.`),
    ).toEqual({ restored: 60001, failed: 2 });
    expect(parseRestoreSummary(`${T}Failed: I/O failure reading beginning of archive: EOF`)).toBeUndefined();
  });

  it('keeps the last meaningful lines, split across chunks, without progress bars', async () => {
    const s = new PassThrough();
    const seen: string[] = [];
    const tail = new LineTail(s, (l) => seen.push(l), 2);
    s.write(`${T}first line\n${T}[####]  a.b  1/2  (50.0%)\n${T}sec`);
    s.write(`ond line\n\n${T}third line`);
    s.end();
    await new Promise((r) => s.on('end', r));
    await new Promise((r) => setImmediate(r));
    expect(seen).toHaveLength(5);
    expect(tail.lines()).toEqual(['second line', 'third line']);
  });
});
