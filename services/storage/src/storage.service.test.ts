import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListMultipartUploadsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { Connection } from 'mongoose';
import { Registry } from 'prom-client';
import {
  AppError,
  connectEventBus,
  connectMongo,
  createLogger,
  grpcClient,
  serviceIdentities,
  stopInOrder,
  type EventBus,
} from '@coffer/common';
import { storage } from '@coffer/proto';
import { startFerretDb, startMinio, startNats, type RunningServer } from '@coffer/local-stack';
import { startStorage } from './build';
import { storageEnvSchema } from './config';
import { s3Client } from './backends/s3';
import { getBlob, putBlob, startPut } from './testing/client';

// Real FerretDB, NATS and MinIO on free ports; the service runs in-process and is driven through
// its gRPC client, once with each backend.
const MiB = 1024 * 1024;
const BUCKET = 'coffer-test';
const MINIO_CREDENTIALS = { accessKeyId: 'coffer-test', secretAccessKey: 'coffer-test-secret-123' };
const log = createLogger('storage-test', process.env.STORAGE_TEST_LOG_LEVEL ?? 'silent');
// The service and the test's client (signing as the gateway) know each other's keys.
const services = serviceIdentities(['storage', 'gateway']);
const context = () => ({ log, registry: new Registry(), identity: services.storage });
const storageClient = (port: number) =>
  grpcClient(storage.StorageServiceClient, `127.0.0.1:${port}`, {
    identity: services.gateway,
    callee: 'storage',
  });

let tmp: string;
let servers: RunningServer[] = [];
let mongoUrl: string;
let natsUrl: string;
let minioUrl: string;
let bus: EventBus;
const limitEvents: Array<{ id: string; data: Record<string, unknown> }> = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-storage-test-'));
  const started = await Promise.allSettled([
    startFerretDb({ dataDir: tmp }),
    startNats({ dataDir: tmp }),
    startMinio({
      dataDir: tmp,
      credentials: { accessKey: MINIO_CREDENTIALS.accessKeyId, secretKey: MINIO_CREDENTIALS.secretAccessKey },
    }),
  ]);
  servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  [mongoUrl, natsUrl, minioUrl] = servers.map((s) => s.url) as [string, string, string];
  bus = await connectEventBus({ url: natsUrl, name: 'storage-test', log, streams: ['AUTH', 'STORAGE'] });
  bus.nc.subscribe('storage.limit.exceeded', {
    callback: (_err, msg) => {
      limitEvents.push(msg.json());
    },
  });
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await Promise.all(servers.map((s) => s.stop()));
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const until = async (what: string, check: () => Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const ids = (prefix: string) => (n: number) => `${prefix}${String(n).padStart(24 - prefix.length, '0')}`;

describe.each(['fs', 's3'] as const)('storage service with the %s backend', (backend) => {
  const user = ids(backend === 'fs' ? 'aaaa' : 'bbbb');
  const blob = ids(backend === 'fs' ? 'cccc' : 'dddd');
  const USER = user(1);
  const OTHER = user(2);
  const storageDir = () => path.join(tmp, 'storage');
  let svc: Awaited<ReturnType<typeof startStorage>> | undefined;
  let client: ReturnType<typeof grpcClient<storage.StorageServiceClient>>;
  let raw: storage.StorageServiceClient;
  let db: Connection;
  let s3: S3Client;
  let config: ReturnType<typeof storageEnvSchema.parse>;

  beforeAll(async () => {
    config = storageEnvSchema.parse({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      MONGODB_URI: mongoUrl,
      NATS_URL: natsUrl,
      GRPC_LISTEN: '127.0.0.1:0',
      STORAGE_DB: `coffer_storage_${backend}`,
      ...(backend === 'fs'
        ? { STORAGE_BACKEND: 'fs', STORAGE_DIR: storageDir() }
        : {
            STORAGE_BACKEND: 's3',
            S3_ENDPOINT: minioUrl,
            S3_BUCKET: BUCKET,
            S3_ACCESS_KEY_ID: MINIO_CREDENTIALS.accessKeyId,
            S3_SECRET_ACCESS_KEY: MINIO_CREDENTIALS.secretAccessKey,
            S3_PART_SIZE: String(5 * MiB),
          }),
    });
    svc = await startStorage(config, context());
    client = storageClient(svc.grpcPort);
    raw = client.raw;
    db = await connectMongo(mongoUrl, `coffer_storage_${backend}`);
    s3 = s3Client({
      bucket: BUCKET,
      region: 'us-east-1',
      endpoint: minioUrl,
      forcePathStyle: true,
      credentials: MINIO_CREDENTIALS,
      partSize: 5 * MiB,
      concurrency: 1,
      connectTimeoutMs: 5_000,
      idleTimeoutMs: 30_000,
    });
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await db?.close();
    await stopInOrder(svc?.steps ?? []);
  });

  /** Everything the backend holds: committed objects and unfinished uploads. */
  async function stored(): Promise<{ objects: string[]; incomplete: string[] }> {
    if (backend === 'fs') {
      const list = (sub: string) => {
        const dir = path.join(storageDir(), sub);
        return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) =>
          fs.statSync(path.join(dir, f)).isFile(),
        );
      };
      return { objects: list('blobs'), incomplete: list('tmp') };
    }
    const objects = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: BUCKET }));
    return {
      objects: (objects.Contents ?? []).map((o) => o.Key!.replace(/^blobs\//, '')),
      incomplete: (uploads.Uploads ?? []).map((u) => u.Key!),
    };
  }
  const docs = (userId: string, blobId?: string) =>
    db
      .collection('blobs')
      .find(blobId ? { userId, blobId } : { userId })
      .toArray();
  const header = (blobId: string, over: Partial<storage.PutHeader> = {}): storage.PutHeader => ({
    userId: USER,
    blobId,
    storageLimit: 0,
    keyFingerprint: 'fp-test',
    ...over,
  });

  it('stores a multi-MiB blob sent in 1 MiB chunks and gives back the same bytes', async () => {
    const data = randomBytes(7 * MiB + 12_345);
    const sha256 = createHash('sha256').update(data).digest('hex');
    const info = await putBlob(raw, header(blob(1)), data);
    expect(info).toMatchObject({
      userId: USER,
      blobId: blob(1),
      size: data.length,
      sha256,
      keyFingerprint: 'fp-test',
    });
    expect(new Date(info.createdAt).toISOString()).toBe(info.createdAt);
    await expect(client.stat({ userId: USER, blobId: blob(1) })).resolves.toEqual(info);

    const got = await getBlob(raw, { userId: USER, blobId: blob(1) });
    expect(got.info).toEqual(info);
    expect(got.size).toBe(data.length);
    expect(got.sha256).toBe(sha256);
    expect(got.data.equals(data)).toBe(true);
    expect(got.largestChunk).toBeLessThanOrEqual(MiB);

    await expect(client.usage({ userId: USER })).resolves.toEqual({ bytesUsed: data.length, blobCount: 1 });
    const s = await stored();
    expect(s.objects).toEqual([expect.stringMatching(new RegExp(`^${USER}/${blob(1)}/[0-9a-f]{16}$`))]);
    expect(s.incomplete).toEqual([]);
  });

  it('refuses an upload over the storage limit, keeps nothing of it, and reports it', async () => {
    const before = await client.usage({ userId: USER });
    const limit = before.bytesUsed + 2 * MiB;
    const err = await putBlob(raw, header(blob(2), { storageLimit: limit }), randomBytes(6 * MiB)).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({
      kind: 'LIMIT_REACHED',
      code: 'STORAGE_LIMIT_EXCEEDED',
      message: 'Storage limit exceeded for your plan',
      details: { storageLimit: limit, bytesUsed: before.bytesUsed },
    });
    await until('the refused upload to be cleaned up', async () => (await docs(USER, blob(2))).length === 0);
    const s = await stored();
    expect(s.objects.filter((k) => k.includes(blob(2)))).toEqual([]);
    expect(s.incomplete).toEqual([]);
    await expect(client.usage({ userId: USER })).resolves.toEqual(before);
    await expect(client.stat({ userId: USER, blobId: blob(2) })).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await until('storage.limit.exceeded', async () => limitEvents.some((e) => e.data.blobId === blob(2)));
    expect(limitEvents.find((e) => e.data.blobId === blob(2))!.data).toEqual({
      userId: USER,
      blobId: blob(2),
      storageLimit: limit,
      bytesUsed: before.bytesUsed,
    });
  });

  it('counts uploads in flight: two held open and finished together cannot pass the limit', async () => {
    const owner = user(3);
    const limit = 3 * MiB;
    const ups = [startPut(raw), startPut(raw)];
    const send = (i: number, msg: storage.PutRequest) => ups[i]!.send(msg).catch(() => undefined);
    for (const [i, id] of [blob(20), blob(21)].entries()) {
      await send(i, { header: { ...header(id, { storageLimit: limit }), userId: owner } });
    }
    // Both streams are open with 2 MiB each before either ends.
    for (let n = 0; n < 2; n++) for (const i of [0, 1]) await send(i, { chunk: randomBytes(MiB) });
    await Promise.all([0, 1].map((i) => send(i, { end: { size: 2 * MiB } })));
    for (const up of ups) up.call.end();
    const results = await Promise.allSettled(ups.map((up) => up.result));

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({
      reason: { kind: 'LIMIT_REACHED', code: 'STORAGE_LIMIT_EXCEEDED', details: { storageLimit: limit } },
    });
    await expect(client.usage({ userId: owner })).resolves.toEqual({ bytesUsed: 2 * MiB, blobCount: 1 });
    // The refused upload's hold went with its document: 1 MiB more fits.
    await until('the refused upload to be cleaned up', async () => (await docs(owner)).length === 1);
    await expect(
      putBlob(raw, { ...header(blob(22), { storageLimit: limit }), userId: owner }, randomBytes(MiB)),
    ).resolves.toMatchObject({ size: MiB });
    for (const id of [blob(20), blob(21), blob(22)]) await client.delete({ userId: owner, blobId: id });
  });

  it('discards an upload the client cancels half-way; the blob can then be uploaded again', async () => {
    const before = await client.usage({ userId: USER });
    const up = startPut(raw);
    await up.send({ header: header(blob(3)) });
    for (let i = 0; i < 6; i++) await up.send({ chunk: randomBytes(MiB) });
    await until('the upload to reach the backend', async () => {
      const [d] = await docs(USER, blob(3));
      return Boolean(d?.uploadRef) && (await stored()).incomplete.length === 1;
    });
    up.call.cancel();
    await expect(up.result).rejects.toBeDefined();
    await until('the cancelled upload to be cleaned up', async () => {
      const s = await stored();
      return (await docs(USER, blob(3))).length === 0 && s.incomplete.length === 0;
    });
    expect((await stored()).objects.filter((k) => k.includes(blob(3)))).toEqual([]);
    await expect(client.usage({ userId: USER })).resolves.toEqual(before);
    await expect(client.stat({ userId: USER, blobId: blob(3) })).rejects.toMatchObject({ kind: 'NOT_FOUND' });

    await expect(putBlob(raw, header(blob(3)), Buffer.from('second try'))).resolves.toMatchObject({
      size: 10,
    });
    await client.delete({ userId: USER, blobId: blob(3) });
  });

  it('refuses a second upload of a stored blob', async () => {
    await expect(putBlob(raw, header(blob(1)), Buffer.from('again'))).rejects.toMatchObject({
      kind: 'CONFLICT',
      message: 'This backup is already stored',
    });
    await expect(getBlob(raw, { userId: USER, blobId: blob(1) })).resolves.toMatchObject({
      size: 7 * MiB + 12_345,
    });
  });

  it.each([
    ['a chunk over 1 MiB', [{ header: 'ok' }, { chunk: MiB + 1 }], 'A chunk must be at most 1 MiB'],
    ['a chunk before the header', [{ chunk: 10 }], 'The first message must be the header'],
    [
      'a second header',
      [{ header: 'ok' }, { chunk: 10 }, { header: 'ok' }],
      'Only the first message may carry the header',
    ],
    ['a bad backup id', [{ header: 'bad-id' }], 'Invalid backup id'],
    [
      'a stream that stops without its end marker',
      [{ header: 'ok' }, { chunk: 10 }],
      'The upload stopped before its end marker; nothing was stored',
    ],
    [
      'an end marker with the wrong size',
      [{ header: 'ok' }, { chunk: 10 }, { end: 11 }],
      'The upload announced 11 bytes but 10 arrived',
    ],
  ])('refuses %s as bad input and keeps nothing', async (_name, messages, message) => {
    const before = await stored();
    const up = startPut(raw);
    for (const m of messages as Array<{ header?: string; chunk?: number; end?: number }>) {
      await up
        .send(
          m.header
            ? { header: header(m.header === 'ok' ? blob(4) : 'not-a-backup-id') }
            : m.end !== undefined
              ? { end: { size: m.end } }
              : { chunk: randomBytes(m.chunk!) },
        )
        .catch(() => undefined);
    }
    up.call.end();
    await expect(up.result).rejects.toMatchObject({ kind: 'BAD_INPUT', message });
    await until('nothing left', async () => (await docs(USER, blob(4))).length === 0);
    await expect(stored()).resolves.toEqual(before);
  });

  it('treats another user’s blob as not found', async () => {
    const ref = { userId: OTHER, blobId: blob(1) };
    await expect(client.stat(ref)).rejects.toMatchObject({
      kind: 'NOT_FOUND',
      message: 'Backup file not found',
    });
    await expect(getBlob(raw, ref)).rejects.toMatchObject({
      kind: 'NOT_FOUND',
      message: 'Backup file not found',
    });
    await expect(client.delete(ref)).resolves.toEqual({});
    await expect(client.usage({ userId: OTHER })).resolves.toEqual({ bytesUsed: 0, blobCount: 0 });
    await expect(client.stat({ userId: USER, blobId: blob(1) })).resolves.toMatchObject({
      size: 7 * MiB + 12_345,
    });
  });

  it('deletes data and metadata; usage drops; deleting again is fine', async () => {
    const before = await client.usage({ userId: USER });
    await putBlob(raw, header(blob(5)), randomBytes(MiB));
    await expect(client.usage({ userId: USER })).resolves.toEqual({
      bytesUsed: before.bytesUsed + MiB,
      blobCount: before.blobCount + 1,
    });
    await client.delete({ userId: USER, blobId: blob(5) });
    await client.delete({ userId: USER, blobId: blob(5) });
    await expect(client.usage({ userId: USER })).resolves.toEqual(before);
    await expect(getBlob(raw, { userId: USER, blobId: blob(5) })).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
    expect((await stored()).objects.filter((k) => k.includes(blob(5)))).toEqual([]);
    expect(await docs(USER, blob(5))).toEqual([]);
  });

  it('removes every blob of a user when auth.user.deleted arrives', async () => {
    const gone = user(3);
    await putBlob(raw, header(blob(6), { userId: gone }), randomBytes(1000));
    await putBlob(raw, header(blob(7), { userId: gone }), Buffer.alloc(0));
    await expect(client.usage({ userId: gone })).resolves.toEqual({ bytesUsed: 1000, blobCount: 2 });
    await bus.publish('auth.user.deleted', { userId: gone, actorId: gone });
    await until('the user’s blobs to be removed', async () => (await docs(gone)).length === 0);
    await expect(client.usage({ userId: gone })).resolves.toEqual({ bytesUsed: 0, blobCount: 0 });
    expect((await stored()).objects.filter((k) => k.startsWith(gone))).toEqual([]);
    // Only that user's blobs went.
    await expect(client.usage({ userId: USER })).resolves.toMatchObject({ blobCount: 1 });
  });

  it('removes them when it comes back, if it was down when the account was deleted', async () => {
    const gone = user(4);
    await putBlob(raw, header(blob(8), { userId: gone }), randomBytes(2000));
    await putBlob(raw, header(blob(9), { userId: gone }), randomBytes(3000));
    client.close();
    await stopInOrder(svc!.steps);
    svc = undefined;

    // The event waits in the AUTH stream for storage's durable consumer.
    await bus.publish('auth.user.deleted', { userId: gone, actorId: user(5), email: 'gone@example.test' });
    expect((await docs(gone)).length).toBe(2);
    expect((await stored()).objects.filter((k) => k.startsWith(gone))).toHaveLength(2);

    svc = await startStorage(config, context());
    client = storageClient(svc.grpcPort);
    raw = client.raw;
    await until('the user’s blobs to be removed', async () => (await docs(gone)).length === 0);
    expect((await stored()).objects.filter((k) => k.startsWith(gone))).toEqual([]);
    await expect(client.usage({ userId: gone })).resolves.toEqual({ bytesUsed: 0, blobCount: 0 });
    await expect(client.usage({ userId: USER })).resolves.toMatchObject({ blobCount: 1 });
  });
});
