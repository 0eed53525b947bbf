/** Largest blob chunk in one gRPC message, both ways (docs/architecture.md, "The backup pipeline":
 * uploads). */
export const MAX_CHUNK = 1024 * 1024;

/**
 * Re-cuts a byte stream into pieces of at most `max` bytes, joining small pieces (an S3 body
 * arrives in 16–64 KiB reads) so each gRPC message carries a useful amount.
 */
export async function* rechunk(source: AsyncIterable<Buffer>, max = MAX_CHUNK): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of source) {
    let off = 0;
    while (off < piece.length) {
      const take = Math.min(max - pendingBytes, piece.length - off);
      pending.push(piece.subarray(off, off + take));
      pendingBytes += take;
      off += take;
      if (pendingBytes === max) {
        yield pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
      }
    }
  }
  if (pendingBytes > 0) yield pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
}
