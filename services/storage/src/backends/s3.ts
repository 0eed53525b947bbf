import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  GetObjectLockConfigurationCommand,
  HeadBucketCommand,
  ListMultipartUploadsCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { partPlan, S3_LIMITS, type PartPlan } from './part-plan.js';
import { assertObjectKey, type BlobBackend, type BlobWriter, type ByteRange } from './types.js';

/** Every object Coffer writes lives under this prefix of the bucket. */
export const S3_KEY_PREFIX = 'blobs/';

export interface S3Options {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** First part size (bytes); doubles every 1000 parts. */
  partSize: number;
  /** Parts of the first size uploaded at once; fewer as parts grow, so memory stays bounded. */
  concurrency: number;
  /** Connection set-up limit and silence limit of every request (config.ts explains them). */
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  /**
   * Blobs under a retention lock are written with S3 Object Lock (compliance mode), so not even
   * these credentials can delete them early: the bucket must have been created with Object Lock.
   */
  objectLock?: boolean;
}

export function s3Client(o: S3Options): S3Client {
  const client = new S3Client({
    region: o.region,
    endpoint: o.endpoint,
    forcePathStyle: o.forcePathStyle,
    credentials: o.credentials,
    maxAttempts: 3,
    // An idle limit rather than a whole-request one: a large part or download that keeps moving
    // may take long, one that stops moving fails (a TimeoutError, failures.ts words it).
    requestHandler: { connectionTimeout: o.connectTimeoutMs, socketTimeout: o.idleTimeoutMs },
  });
  // S3 checks a part's bytes against the CRC32 the SDK sends with it. Signing the bytes as well
  // would hash every byte of a backup with SHA-256 a second time (storage hashes it once, for the
  // blob's record): the signature covers the request and the checksum, not the payload.
  client.middlewareStack.add(
    (next, context) => (args) => {
      const request = args.request as { headers?: Record<string, string> };
      if (context.commandName === 'UploadPartCommand' && request.headers)
        request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      return next(args);
    },
    { step: 'build', name: 'cofferUnsignedPartPayload' },
  );
  return client;
}

const isMissing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchBucket' || e?.$metadata?.httpStatusCode === 404;
};
const isNoSuchUpload = (err: unknown) => (err as { name?: string })?.name === 'NoSuchUpload';

/**
 * Compliance mode: nobody, root credentials included, deletes the version before the date. A date
 * already past (S3 refuses one) needs no lock.
 */
export function lockHeaders(
  objectLock: boolean | undefined,
  retainUntil: Date | undefined,
  now = new Date(),
) {
  if (!objectLock || !retainUntil || retainUntil <= now) return {};
  return { ObjectLockMode: 'COMPLIANCE' as const, ObjectLockRetainUntilDate: retainUntil };
}

async function objectLockEnabled(client: S3Client, Bucket: string): Promise<boolean> {
  try {
    const r = await client.send(new GetObjectLockConfigurationCommand({ Bucket }));
    return r.ObjectLockConfiguration?.ObjectLockEnabled === 'Enabled';
  } catch (err) {
    if ((err as { name?: string })?.name === 'ObjectLockConfigurationNotFoundError') return false;
    throw err;
  }
}

/**
 * Blobs as S3 objects, written with our own multipart loop: parts are filled from the stream,
 * uploaded a few at a time, and `write` waits while the in-flight parts are at their limit, so
 * the caller's stream pauses instead of the service buffering. Abort (or any failure) ends in
 * AbortMultipartUpload, so no partial object survives.
 */
export function s3Backend(o: S3Options, client = s3Client(o)): BlobBackend {
  const Bucket = o.bucket;
  const plan = partPlan(o.partSize);
  const keyOf = (objectKey: string) => S3_KEY_PREFIX + assertObjectKey(objectKey);

  return {
    name: 's3',

    async init() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (err) {
        if (!isMissing(err)) throw err;
        try {
          // Object Lock can only be had on a bucket created with it (it also turns on versioning).
          await client.send(
            new CreateBucketCommand({ Bucket, ObjectLockEnabledForBucket: o.objectLock || undefined }),
          );
        } catch (e) {
          // Another replica created it in the meantime.
          if ((e as { name?: string })?.name !== 'BucketAlreadyOwnedByYou') throw e;
        }
      }
      if (o.objectLock && !(await objectLockEnabled(client, Bucket))) {
        throw new Error(
          `S3 bucket ${Bucket} was created without Object Lock, so locked backups could be deleted early. ` +
            'Point S3_BUCKET at a new bucket (storage creates it with Object Lock) or set S3_OBJECT_LOCK=false.',
        );
      }
    },

    async createWriter(objectKey, opts) {
      const Key = keyOf(objectKey);
      const retention = lockHeaders(o.objectLock, opts?.retainUntil);
      const created = await client.send(
        new CreateMultipartUploadCommand({
          Bucket,
          Key,
          ContentType: 'application/octet-stream',
          // The SDK sends a CRC32 with every part; declaring it here keeps S3 from refusing the mix.
          ChecksumAlgorithm: 'CRC32',
          ...retention,
        }),
      );
      if (!created.UploadId) throw new Error('S3 did not return an upload id');
      return multipartWriter({
        client,
        Bucket,
        Key,
        UploadId: created.UploadId,
        plan,
        concurrency: o.concurrency,
        basePartSize: o.partSize,
        retention,
      });
    },

    async read(objectKey: string, range?: ByteRange): Promise<Readable> {
      const Range = range ? `bytes=${range.start}-${range.end ?? ''}` : undefined;
      const res = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(objectKey), Range }));
      if (!res.Body) throw new Error('S3 returned no body');
      return res.Body as Readable;
    },

    async remove(objectKey) {
      const Key = keyOf(objectKey);
      if (!o.objectLock) {
        await client.send(new DeleteObjectCommand({ Bucket, Key }));
        return;
      }
      // A versioned bucket (Object Lock's) only hides an object deleted by key behind a delete
      // marker: every version goes by id, so the bytes really go, and a locked one is refused.
      const listed = await client.send(new ListObjectVersionsCommand({ Bucket, Prefix: Key }));
      for (const v of [...(listed.Versions ?? []), ...(listed.DeleteMarkers ?? [])]) {
        if (v.Key !== Key) continue;
        await client.send(new DeleteObjectCommand({ Bucket, Key, VersionId: v.VersionId }));
      }
    },

    async discard(ref, objectKey) {
      if (!objectKey) throw new Error('an S3 upload is discarded by key and upload id');
      try {
        await client.send(new AbortMultipartUploadCommand({ Bucket, Key: keyOf(objectKey), UploadId: ref }));
      } catch (err) {
        if (!isNoSuchUpload(err) && !isMissing(err)) throw err;
      }
    },

    async *listIncomplete() {
      let KeyMarker: string | undefined;
      let UploadIdMarker: string | undefined;
      for (;;) {
        const page = await client.send(
          new ListMultipartUploadsCommand({ Bucket, Prefix: S3_KEY_PREFIX, KeyMarker, UploadIdMarker }),
        );
        for (const u of page.Uploads ?? []) {
          if (!u.Key || !u.UploadId) continue;
          yield {
            ref: u.UploadId,
            startedAt: u.Initiated ?? new Date(0),
            objectKey: u.Key.slice(S3_KEY_PREFIX.length),
          };
        }
        if (!page.IsTruncated) return;
        KeyMarker = page.NextKeyMarker;
        UploadIdMarker = page.NextUploadIdMarker;
      }
    },

    async ping() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** The multipart loop of one upload; exported for unit tests with a fake client. */
export function multipartWriter(a: {
  client: Pick<S3Client, 'send'>;
  Bucket: string;
  Key: string;
  UploadId: string;
  plan: PartPlan;
  concurrency: number;
  basePartSize: number;
  /** Object Lock headers for the empty object written instead of a multipart upload. */
  retention?: ReturnType<typeof lockHeaders>;
}): BlobWriter {
  const { client, Bucket, Key, UploadId, plan } = a;
  const abortController = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const parts: CompletedPart[] = [];
  let failure: unknown;
  let partNumber = 1;
  let current: Buffer | undefined;
  let filled = 0;
  let total = 0;
  let done = false;

  // Fewer parts at once as parts grow: in-flight bytes stay near concurrency × first part size.
  const maxInFlight = () =>
    Math.max(1, Math.floor((a.concurrency * a.basePartSize) / plan.sizeOf(partNumber)));

  const check = () => {
    if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  };

  async function waitForSlot() {
    while (inFlight.size >= maxInFlight()) await Promise.race(inFlight);
    check();
  }

  function startPart(body: Buffer) {
    const PartNumber = partNumber++;
    const p: Promise<void> = client
      .send(
        new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: body, ContentLength: body.length }),
        {
          abortSignal: abortController.signal,
        },
      )
      .then(
        (res) => {
          parts.push({ PartNumber, ETag: res.ETag, ChecksumCRC32: res.ChecksumCRC32 });
        },
        (err: unknown) => {
          failure ??= err;
        },
      )
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  return {
    ref: UploadId,

    async write(chunk) {
      check();
      total += chunk.length;
      if (total > S3_LIMITS.maxObjectSize) throw new Error('blob is larger than S3 allows (5 TiB)');
      let off = 0;
      while (off < chunk.length) {
        const size = plan.sizeOf(partNumber);
        current ??= Buffer.allocUnsafe(size);
        const n = chunk.copy(current, filled, off, off + (size - filled));
        filled += n;
        off += n;
        if (filled === size) {
          if (partNumber >= S3_LIMITS.maxParts) throw new Error('blob needs more than 10,000 S3 parts');
          await waitForSlot();
          startPart(current);
          current = undefined;
          filled = 0;
        }
      }
    },

    async commit() {
      check();
      if (partNumber === 1 && filled === 0) {
        // Nothing was written: an empty object, since a multipart upload needs one part.
        await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));
        await client.send(
          new PutObjectCommand({
            Bucket,
            Key,
            Body: Buffer.alloc(0),
            ContentLength: 0,
            ChecksumAlgorithm: 'CRC32',
            ...a.retention,
          }),
        );
        done = true;
        return;
      }
      if (filled > 0) {
        await waitForSlot();
        startPart(current!.subarray(0, filled));
        current = undefined;
        filled = 0;
      }
      await Promise.all(inFlight);
      check();
      parts.sort((x, y) => x.PartNumber! - y.PartNumber!);
      await client.send(
        new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }),
      );
      done = true;
    },

    async abort() {
      if (done) return;
      done = true;
      current = undefined;
      abortController.abort();
      await Promise.allSettled([...inFlight]);
      try {
        await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));
      } catch (err) {
        if (!isNoSuchUpload(err)) throw err;
      }
    },
  };
}
