// Byte streams for tests: input cut into random pieces (so chunk boundaries never line up with
// writes), and the output of a stream collected whole.
import { Readable, Writable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Feeds `data` in random-sized slices of 1 to 5000 bytes. */
export function slices(data: Buffer): Readable {
  const out: Buffer[] = [];
  for (let i = 0; i < data.length;) {
    const n = 1 + Math.floor(Math.random() * 5000);
    out.push(data.subarray(i, i + n));
    i += n;
  }
  return Readable.from(out);
}

/** A Writable that keeps everything written to it. */
export function collect(): { sink: Writable; data: () => Buffer } {
  const parts: Buffer[] = [];
  return {
    sink: new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) }),
    data: () => Buffer.concat(parts),
  };
}

/** `data`, in random slices, through `stream`; resolves with all it produced. */
export async function through(stream: Duplex, data: Buffer): Promise<Buffer> {
  const c = collect();
  await pipeline(slices(data), stream, c.sink);
  return c.data();
}
