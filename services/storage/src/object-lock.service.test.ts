import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectRetentionCommand,
  ListObjectVersionsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Registry } from 'prom-client';
import { createLogger, grpcClient, serviceIdentities, stopInOrder } from '@coffer/common';
import { storage } from '@coffer/proto';
import { startFerretDb, startMinio, startNats, type RunningServer } from '@coffer/local-stack';
import { startStorage } from './build';
import { storageEnvSchema } from './config';
import { s3Client, S3_KEY_PREFIX } from './backends/s3';
import { putBlob } from './testing/client';

// S3 Object Lock on a real MinIO: a blob stored under the retention lock is written in compliance
// mode with its lock date as retain-until, so neither storage's Delete nor a direct S3 call with
// storage's own credentials removes it before then; afterwards both do. The date is a few seconds
// ahead, so the test waits for it to pass rather than backdating (compliance cannot be shortened).
const BUCKET = 'coffer-locked';
const CREDENTIALS = { accessKeyId: 'coffer-lock-test', secretAccessKey: 'coffer-lock-test-secret-1' };
const USER = 'eeee00000000000000000001';
const BLOB = 'ffff00000000000000000001';
const log = createLogger('storage-lock-test', process.env.STORAGE_TEST_LOG_LEVEL ?? 'silent');
// The service and the test's client (signing as the gateway) know each other's keys.
const services = serviceIdentities(['storage', 'gateway']);
const context = () => ({ log, registry: new Registry(), identity: services.storage });

let tmp: string;
let servers: RunningServer[] = [];
let mongoUrl: string;
let natsUrl: string;
let minioUrl: string;
let s3: S3Client;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-storage-lock-'));
  const started = await Promise.allSettled([
    startFerretDb({ dataDir: tmp }),
    startNats({ dataDir: tmp }),
    startMinio({
      dataDir: tmp,
      credentials: { accessKey: CREDENTIALS.accessKeyId, secretKey: CREDENTIALS.secretAccessKey },
    }),
  ]);
  servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  [mongoUrl, natsUrl, minioUrl] = servers.map((s) => s.url) as [string, string, string];
  s3 = s3Client({
    bucket: BUCKET,
    region: 'us-east-1',
    endpoint: minioUrl,
    forcePathStyle: true,
    credentials: CREDENTIALS,
    partSize: 5 * 1024 * 1024,
    concurrency: 1,
    connectTimeoutMs: 5_000,
    idleTimeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  await Promise.all(servers.map((s) => s.stop()));
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const config = (bucket: string) =>
  storageEnvSchema.parse({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    MONGODB_URI: mongoUrl,
    NATS_URL: natsUrl,
    GRPC_LISTEN: '127.0.0.1:0',
    STORAGE_DB: `coffer_storage_${bucket.replace(/-/g, '_')}`,
    STORAGE_BACKEND: 's3',
    S3_ENDPOINT: minioUrl,
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  });

async function versionsOf(prefix: string) {
  const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: BUCKET, Prefix: prefix }));
  return [...(listed.Versions ?? []), ...(listed.DeleteMarkers ?? [])];
}

const waitUntil = async (t: Date) => {
  while (Date.now() <= t.getTime() + 1000) await new Promise((r) => setTimeout(r, 250));
};

describe('storage on S3 with Object Lock', () => {
  let svc: Awaited<ReturnType<typeof startStorage>> | undefined;
  let client: ReturnType<typeof grpcClient<storage.StorageServiceClient>>;
  let raw: storage.StorageServiceClient;

  beforeAll(async () => {
    svc = await startStorage(config(BUCKET), context());
    client = grpcClient(storage.StorageServiceClient, `127.0.0.1:${svc.grpcPort}`, {
      identity: services.gateway,
      callee: 'storage',
    });
    raw = client.raw;
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await stopInOrder(svc?.steps ?? []);
  });

  it('keeps a locked blob from its own credentials and from Delete until its date, then lets both', async () => {
    const lockedUntil = new Date(Date.now() + 6_000);
    await putBlob(
      raw,
      {
        userId: USER,
        blobId: BLOB,
        storageLimit: 0,
        keyFingerprint: 'fp',
        lockedUntil: lockedUntil.toISOString(),
      },
      [Buffer.from('ciphertext under lock')],
    );
    const prefix = `${S3_KEY_PREFIX}${USER}/${BLOB}/`;
    const [version] = await versionsOf(prefix);
    expect(version?.Key).toMatch(new RegExp(`^${prefix}[0-9a-f]+$`));
    const retention = await s3.send(
      new GetObjectRetentionCommand({ Bucket: BUCKET, Key: version!.Key, VersionId: version!.VersionId }),
    );
    expect(retention.Retention?.Mode).toBe('COMPLIANCE');
    expect(retention.Retention?.RetainUntilDate?.getTime()).toBe(lockedUntil.getTime());

    // Storage's Delete: refused by storage itself, naming the date.
    await expect(client.delete({ userId: USER, blobId: BLOB })).rejects.toMatchObject({
      kind: 'CONFLICT',
      code: 'BACKUP_LOCKED',
      message: expect.stringContaining('This backup is locked until'),
    });
    // Storage's own S3 credentials, straight at MinIO: the locked version cannot be deleted.
    await expect(
      s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: version!.Key, VersionId: version!.VersionId })),
      // MinIO's words; AWS answers AccessDenied.
    ).rejects.toThrow(/WORM protected|Access Denied/);
    expect((await versionsOf(prefix)).map((v) => v.VersionId)).toEqual([version!.VersionId]);

    await waitUntil(lockedUntil);
    await client.delete({ userId: USER, blobId: BLOB });
    // Every version went, not just a delete marker over it.
    expect(await versionsOf(prefix)).toEqual([]);
  });

  it('writes a blob without a lock date without retention; it deletes at once', async () => {
    const blobId = 'ffff00000000000000000002';
    await putBlob(raw, { userId: USER, blobId, storageLimit: 0, keyFingerprint: 'fp' }, [Buffer.from('x')]);
    const prefix = `${S3_KEY_PREFIX}${USER}/${blobId}/`;
    const [version] = await versionsOf(prefix);
    await expect(
      s3.send(
        new GetObjectRetentionCommand({ Bucket: BUCKET, Key: version!.Key, VersionId: version!.VersionId }),
      ),
    ).rejects.toMatchObject({ name: expect.stringMatching(/NoSuchObjectLockConfiguration|InvalidRequest/) });
    await client.delete({ userId: USER, blobId });
    expect(await versionsOf(prefix)).toEqual([]);
  });
});

it('refuses to start on a bucket created without Object Lock, saying what to do', async () => {
  const plain = 'coffer-plain';
  await s3.send(new CreateBucketCommand({ Bucket: plain }));
  await expect(startStorage(config(plain), context())).rejects.toThrow(
    /coffer-plain was created without Object Lock.*S3_OBJECT_LOCK=false/,
  );
});
