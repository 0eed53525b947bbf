import type { StorageConfig } from '../config.js';
import { fsBackend } from './fs.js';
import { s3Backend } from './s3.js';
import type { BlobBackend } from './types.js';

export type { BlobBackend, BlobWriter } from './types.js';

/** The configured blob store: S3 (or an S3-compatible server) or the local filesystem. */
export function createBackend(c: StorageConfig): BlobBackend {
  if (c.STORAGE_BACKEND === 'fs') return fsBackend(c.STORAGE_DIR);
  return s3Backend({
    bucket: c.S3_BUCKET!,
    region: c.S3_REGION,
    endpoint: c.S3_ENDPOINT,
    forcePathStyle: c.S3_FORCE_PATH_STYLE,
    credentials:
      c.S3_ACCESS_KEY_ID && c.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: c.S3_ACCESS_KEY_ID, secretAccessKey: c.S3_SECRET_ACCESS_KEY }
        : undefined,
    partSize: c.S3_PART_SIZE,
    concurrency: c.S3_PART_CONCURRENCY,
    connectTimeoutMs: c.S3_CONNECT_TIMEOUT_MS,
    idleTimeoutMs: c.S3_IDLE_TIMEOUT_MS,
    objectLock: c.S3_OBJECT_LOCK,
  });
}
