// Reading what mongodump and mongorestore print on stderr: their progress bars, per-collection
// results and mongorestore's final summary. Formats from mongo-tools (common/progress, common/text
// GridWriter, mongodump, mongorestore/main): lines start with an RFC 3339 timestamp and a tab.
//
// What mongodump prints, and when (the pinned mongo-tools, `--archive` to stdout): it first counts
// every collection (estimatedDocumentCount; on FerretDB a full scan) and prints nothing; then, per
// collection as a worker takes it, "writing db.coll to archive on stdout"; every 3 s (not every
// second), one bar per collection being dumped at that moment, as a grid whose columns are
// right-aligned and padded to the widest cell (so a count may be preceded by several spaces), plus
// an empty line when several bars are printed; one last bar when a collection that already had a
// bar ends; and "done dumping db.coll (N documents)". A collection whose count was 0 gets a bar
// without total ("db.coll  N"). A collection dumped within 3 s never gets a bar at all.
import type { Readable } from 'node:stream';

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)\t/;

export function stripTimestamp(line: string): string {
  return line.replace(TIMESTAMP, '');
}

export interface ProgressLine {
  ns: string;
  current: number;
  /** The tool's own expectation; undefined on a bar without total. */
  total: number | undefined;
}

/**
 * `[########........]  db.coll  123/456  (27.0%)` → namespace and count. With `db`, also the bar
 * mongodump prints for a collection it expected to be empty, `db.coll  123`, which only the
 * database prefix tells apart from any other line ending in a number.
 */
export function parseProgressLine(line: string, db?: string): ProgressLine | undefined {
  const text = stripTimestamp(line);
  const bar = /^\[[#.]*\]\s+(\S.*?)\s+(\d+)\/(\d+)\s+\(\d+(?:\.\d+)?%\)\s*$/.exec(text);
  if (bar) return { ns: bar[1]!, current: Number(bar[2]), total: Number(bar[3]) };
  if (db === undefined) return undefined;
  const count = /^\s*(\S.*?)\s+(\d+)\s*$/.exec(text);
  if (count && count[1]!.startsWith(`${db}.`) && count[1]!.length > db.length + 1)
    return { ns: count[1]!, current: Number(count[2]), total: undefined };
  return undefined;
}

/** `writing db.coll to archive on stdout`: a worker has started dumping the collection. */
export function parseDumpStart(line: string): { ns: string } | undefined {
  const m = /^writing (.+) to archive on stdout$/.exec(stripTimestamp(line).trim());
  return m ? { ns: m[1]! } : undefined;
}

/** `done dumping db.coll (123 documents)` */
export function parseDumpDone(line: string): { ns: string; documents: number } | undefined {
  const m = /^done dumping (.+) \((\d+) documents?\)$/.exec(stripTimestamp(line).trim());
  return m ? { ns: m[1]!, documents: Number(m[2]) } : undefined;
}

/** `finished restoring db.coll (123 documents, 0 failures)` */
export function parseRestoreDone(
  line: string,
): { ns: string; documents: number; failures: number } | undefined {
  const m = /^finished restoring (.+) \((\d+) documents?, (\d+) failures?\)$/.exec(
    stripTimestamp(line).trim(),
  );
  return m ? { ns: m[1]!, documents: Number(m[2]), failures: Number(m[3]) } : undefined;
}

/** `N document(s) restored successfully. M document(s) failed to restore.` */
export function parseRestoreSummary(line: string): { restored: number; failed: number } | undefined {
  const m = /(\d+) document\(s\) restored successfully\. (\d+) document\(s\) failed to restore\./.exec(line);
  return m ? { restored: Number(m[1]), failed: Number(m[2]) } : undefined;
}

/**
 * Splits a stream into lines, calls `onLine` for each, and keeps the last `keep` meaningful lines
 * (progress bars and blank lines are not kept) for error messages. Bounded memory: a line longer
 * than 4 KiB is cut.
 */
export class LineTail {
  private partial = '';
  private readonly tail: string[] = [];

  constructor(
    stream: Readable,
    private readonly onLine: (line: string) => void,
    private readonly keep = 15,
  ) {
    stream.setEncoding('utf8');
    stream.on('data', (s: string) => this.push(s));
    stream.on('end', () => this.flush());
  }

  lines(): string[] {
    return [...this.tail];
  }

  private push(s: string): void {
    const parts = (this.partial + s).split(/\r?\n/);
    this.partial = parts.pop()!.slice(0, 4096);
    for (const p of parts) this.line(p);
  }

  private flush(): void {
    if (this.partial) this.line(this.partial);
    this.partial = '';
  }

  private line(raw: string): void {
    const line = raw.slice(0, 4096);
    this.onLine(line);
    const text = stripTimestamp(line).trim();
    if (!text || parseProgressLine(line)) return;
    this.tail.push(text);
    if (this.tail.length > this.keep) this.tail.shift();
  }
}
