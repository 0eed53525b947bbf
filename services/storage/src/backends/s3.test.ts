import { Readable } from 'node:stream';
import { PutObjectCommand, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';
import { partPlan } from './part-plan';
import { multipartWriter, s3Client } from './s3';

const MiB = 1024 * 1024;

/** A fake S3 client: records commands; UploadPart answers only when the test releases it. */
function fakeS3(opts: { failPart?: number } = {}) {
  const sent: Array<{ name: string; input: Record<string, unknown> }> = [];
  const pending: Array<{ part: number; resolve: () => void }> = [];
  const client: Pick<S3Client, 'send'> = {
    send: ((
      cmd: { constructor: { name: string }; input: Record<string, unknown> },
      o?: { abortSignal?: AbortSignal },
    ) => {
      const name = cmd.constructor.name.replace(/Command$/, '');
      sent.push({ name, input: cmd.input });
      if (name !== 'UploadPart') return Promise.resolve({});
      const part = cmd.input.PartNumber as number;
      return new Promise((resolve, reject) => {
        o?.abortSignal?.addEventListener('abort', () => reject(new Error('aborted')));
        pending.push({
          part,
          resolve: () =>
            part === opts.failPart ? reject(new Error('part failed')) : resolve({ ETag: `"etag-${part}"` }),
        });
      });
    }) as unknown as S3Client['send'],
  };
  const tick = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };
  return {
    client,
    sent,
    names: () => sent.map((s) => s.name),
    partSizes: () => sent.filter((s) => s.name === 'UploadPart').map((s) => (s.input.Body as Buffer).length),
    inFlight: () => pending.length,
    async releaseAll() {
      while (pending.length) {
        pending.shift()!.resolve();
        await tick();
      }
    },
    tick,
  };
}

const writer = (s3: ReturnType<typeof fakeS3>, concurrency = 2) =>
  multipartWriter({
    client: s3.client,
    Bucket: 'b',
    Key: 'blobs/k',
    UploadId: 'up-1',
    plan: partPlan(5 * MiB, 2), // small steps, so a test sees the part size double
    concurrency,
    basePartSize: 5 * MiB,
  });

describe('S3 multipart writer', () => {
  it('cuts the stream into growing parts and completes with every part in order', async () => {
    const s3 = fakeS3();
    const w = writer(s3, 8);
    const chunk = Buffer.alloc(MiB, 7);
    for (let i = 0; i < 33; i++) {
      await w.write(chunk);
    }
    const committing = w.commit();
    await s3.tick();
    await s3.releaseAll();
    await committing;
    // 5, 5, then 10, 10 MiB (doubling every 2 parts in this plan), then the 3 MiB rest.
    expect(s3.partSizes()).toEqual([5, 5, 10, 10, 3].map((n) => n * MiB));
    const complete = s3.sent.find((s) => s.name === 'CompleteMultipartUpload')!;
    expect(
      (complete.input.MultipartUpload as { Parts: Array<{ PartNumber: number; ETag: string }> }).Parts,
    ).toEqual([1, 2, 3, 4, 5].map((n) => expect.objectContaining({ PartNumber: n, ETag: `"etag-${n}"` })));
  });

  it('makes write wait while the in-flight parts are at their limit (backpressure)', async () => {
    const s3 = fakeS3();
    const w = writer(s3, 2);
    for (let i = 0; i < 10; i++) await w.write(Buffer.alloc(MiB)); // parts 1 and 2 in flight
    expect(s3.inFlight()).toBe(2);
    let resolved = false;
    const pendingWrite = (async () => {
      for (let i = 0; i < 10; i++) await w.write(Buffer.alloc(MiB)); // fills part 3 (10 MiB): no slot
      resolved = true;
    })();
    await s3.tick();
    expect(resolved).toBe(false);
    await s3.releaseAll();
    await pendingWrite;
    expect(resolved).toBe(true);
  });

  it('aborts the multipart upload after in-flight parts settle, so no part survives', async () => {
    const s3 = fakeS3();
    const w = writer(s3);
    for (let i = 0; i < 6; i++) await w.write(Buffer.alloc(MiB));
    await w.abort();
    expect(s3.names()).toEqual(['UploadPart', 'AbortMultipartUpload']);
    expect(s3.sent[1]!.input).toMatchObject({ Bucket: 'b', Key: 'blobs/k', UploadId: 'up-1' });
  });

  it('surfaces a failed part on the next write, and abort then cleans up', async () => {
    const s3 = fakeS3({ failPart: 1 });
    const w = writer(s3);
    for (let i = 0; i < 5; i++) await w.write(Buffer.alloc(MiB));
    await s3.releaseAll();
    await expect(w.write(Buffer.alloc(1))).rejects.toThrow('part failed');
    await w.abort();
    expect(s3.names()).toContain('AbortMultipartUpload');
    expect(s3.names()).not.toContain('CompleteMultipartUpload');
  });

  it('stores an empty blob as an empty object', async () => {
    const s3 = fakeS3();
    await writer(s3).commit();
    expect(s3.names()).toEqual(['AbortMultipartUpload', 'PutObject']);
  });
});

describe('the S3 client', () => {
  it('sends a part with its CRC32 and an unsigned payload, and still signs other requests’ bodies', async () => {
    const client = s3Client({
      bucket: 'b',
      partSize: 8 * MiB,
      concurrency: 1,
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      forcePathStyle: true,
      credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
      connectTimeoutMs: 1000,
      idleTimeoutMs: 1000,
    });
    // What would go to S3, answered here: the request's headers, as signed.
    const seen: Array<Record<string, string>> = [];
    client.config.requestHandler = {
      handle: async (request: { headers: Record<string, string> }) => {
        seen.push(request.headers);
        return { response: { statusCode: 200, headers: { etag: '"e"' }, body: Readable.from([]) } };
      },
    } as unknown as typeof client.config.requestHandler;
    const part = { Bucket: 'b', Key: 'k', UploadId: 'u', PartNumber: 1 };
    await client.send(new UploadPartCommand({ ...part, Body: Buffer.from('ciphertext') }));
    await client.send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: Buffer.from('x') }));
    const [uploadPart, putObject] = seen;
    expect(uploadPart).toMatchObject({
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      'x-amz-checksum-crc32': expect.any(String),
      authorization: expect.stringContaining('x-amz-content-sha256'),
    });
    expect(putObject!['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
  });
});
