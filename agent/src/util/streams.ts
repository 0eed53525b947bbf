import * as stream from 'node:stream';
import { Transform, Writable, type Duplex, type TransformCallback } from 'node:stream';

/** A pass-through that counts the bytes flowing through it. */
export class ByteCounter extends Transform {
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    cb(null, chunk);
  }
}

/** A Writable that drops everything (verification passes that only need the checks). */
export function discard(): Writable {
  return new Writable({ write: (_c, _e, cb) => cb() });
}

type ComposeStage =
  | NodeJS.ReadableStream
  | NodeJS.WritableStream
  | Duplex
  | ((source: AsyncIterable<Buffer>) => AsyncIterable<Buffer>);

/**
 * `stream.compose` (Node >= 16.9; missing from @types/node): chains stages into one Duplex whose
 * writable side is the first stage and readable side the last, with backpressure and errors
 * carried through every stage.
 */
export const compose = (stream as unknown as { compose: (...stages: ComposeStage[]) => Duplex }).compose;

/** Resolves when `w` takes more data; rejects when it fails first. */
export function drained(w: Writable): Promise<void> {
  if (w.destroyed) return Promise.reject(w.errored ?? new Error('The stream was closed'));
  return new Promise((resolve, reject) => {
    const done = (e?: Error | null) => {
      w.off('drain', onDrain);
      w.off('error', onError);
      w.off('close', onClose);
      if (e) reject(e);
      else resolve();
    };
    const onDrain = () => done();
    const onError = (e: Error) => done(e);
    const onClose = () => done(w.errored ?? new Error('The stream was closed'));
    w.on('drain', onDrain).on('error', onError).on('close', onClose);
  });
}
