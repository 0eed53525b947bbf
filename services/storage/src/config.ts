import path from 'node:path';
import { z } from 'zod';
import { baseEnv, defaultGrpc, loadConfig } from '@coffer/common';

const MiB = 1024 * 1024;
/** S3's smallest part (every part but the last must be at least this big). */
export const S3_MIN_PART_SIZE = 5 * MiB;

const seconds = (fallback: number) => z.coerce.number().int().min(1).default(fallback);
const optionalString = z
  .string()
  .optional()
  .transform((s) => s || undefined);

/** The database setting, all the migrate step (migrate.ts) reads besides MONGODB_URI. */
export const storageDbEnv = { STORAGE_DB: z.string().min(1).default('coffer_storage') };

export const storageEnvSchema = z
  .object({
    ...baseEnv,
    GRPC_LISTEN: z.string().default(defaultGrpc.storage),
    ...storageDbEnv,
    /** fs or s3; when unset, s3 if S3_BUCKET is set, else fs (docs/operations.md, "Storage"). */
    STORAGE_BACKEND: z.enum(['fs', 's3']).optional(),
    /** Filesystem store root; relative paths resolve against the working directory. */
    STORAGE_DIR: z.string().min(1).optional(),
    S3_BUCKET: optionalString,
    S3_ENDPOINT: optionalString.pipe(z.url('S3_ENDPOINT must be a URL').optional()),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_ACCESS_KEY_ID: optionalString,
    S3_SECRET_ACCESS_KEY: optionalString,
    /** Path-style URLs (http://host/bucket/key); defaults to true when S3_ENDPOINT is set (MinIO & co). */
    S3_FORCE_PATH_STYLE: z.stringbool().optional(),
    /** Size of the first 1000 parts of a multipart upload; doubles every 1000 parts. */
    S3_PART_SIZE: z.coerce
      .number()
      .int()
      .min(S3_MIN_PART_SIZE, 'S3_PART_SIZE must be at least 5 MiB (5242880)')
      .default(8 * MiB),
    /** Parts uploaded at once per blob (memory per upload is about (this + 1) × part size). */
    S3_PART_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(4),
    /** How long connecting to S3 may take before the request fails. */
    S3_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
    /**
     * How long an S3 connection may stay silent (no byte either way) before the request fails: a
     * hung S3 ends the upload or download with a message instead of holding it forever.
     */
    S3_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    /**
     * Write blobs under a retention lock with S3 Object Lock (compliance mode); the bucket must be
     * created with Object Lock (storage does so when it creates it). Off only for an S3 service
     * without Object Lock: storage's own records then are the only guard.
     */
    S3_OBJECT_LOCK: z.stringbool().default(true),
    /** An upload not heard from for this long is considered dead and its data removed. */
    STORAGE_STALE_UPLOAD_SECONDS: seconds(600),
    /** How often left-overs (dead uploads, unfinished deletions) are swept. */
    STORAGE_SWEEP_INTERVAL_SECONDS: seconds(60),
  })
  .superRefine((c, ctx) => {
    const backend = c.STORAGE_BACKEND ?? (c.S3_BUCKET ? 's3' : 'fs');
    if (backend === 's3' && !c.S3_BUCKET) {
      ctx.addIssue({
        code: 'custom',
        path: ['S3_BUCKET'],
        message: 'S3_BUCKET is required with STORAGE_BACKEND=s3',
      });
    }
    if (Boolean(c.S3_ACCESS_KEY_ID) !== Boolean(c.S3_SECRET_ACCESS_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: ['S3_SECRET_ACCESS_KEY'],
        message:
          'set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (default AWS credential chain)',
      });
    }
    if (
      backend === 'fs' &&
      c.NODE_ENV === 'production' &&
      !(c.STORAGE_DIR && path.isAbsolute(c.STORAGE_DIR))
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['STORAGE_DIR'],
        message: 'STORAGE_DIR must be an absolute path in production',
      });
    }
  })
  .transform((c) => {
    const backend = c.STORAGE_BACKEND ?? (c.S3_BUCKET ? 's3' : 'fs');
    return {
      ...c,
      STORAGE_BACKEND: backend,
      STORAGE_DIR: path.resolve(c.STORAGE_DIR ?? '.coffer-data/storage'),
      S3_FORCE_PATH_STYLE: c.S3_FORCE_PATH_STYLE ?? Boolean(c.S3_ENDPOINT),
    };
  });

export type StorageConfig = z.infer<typeof storageEnvSchema>;
export const loadStorageConfig = (env = process.env) => loadConfig('storage', storageEnvSchema, env);
