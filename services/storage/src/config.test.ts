import path from 'node:path';
import { storageEnvSchema } from './config';

const parse = (env: Record<string, string>) => storageEnvSchema.safeParse(env);

describe('storage configuration', () => {
  it('defaults to the filesystem under .coffer-data/storage of the working directory', () => {
    const c = parse({});
    expect(c.success && c.data).toMatchObject({
      STORAGE_BACKEND: 'fs',
      STORAGE_DIR: path.resolve('.coffer-data/storage'),
      STORAGE_DB: 'coffer_storage',
      GRPC_LISTEN: '127.0.0.1:50055',
    });
  });

  it('uses S3 when a bucket is configured, with path-style URLs for a custom endpoint', () => {
    const c = parse({
      S3_BUCKET: 'b',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
    });
    expect(c.success && c.data).toMatchObject({
      STORAGE_BACKEND: 's3',
      S3_FORCE_PATH_STYLE: true,
      S3_REGION: 'us-east-1',
      S3_PART_SIZE: 8 * 1024 * 1024,
    });
    expect(parse({ S3_BUCKET: 'b' }).data?.S3_FORCE_PATH_STYLE).toBe(false);
  });

  it.each([
    [{ STORAGE_BACKEND: 's3' }, 'S3_BUCKET'],
    [{ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' }, 'S3_SECRET_ACCESS_KEY'],
    [{ NODE_ENV: 'production' }, 'STORAGE_DIR'],
    [{ NODE_ENV: 'production', STORAGE_DIR: 'relative/dir' }, 'STORAGE_DIR'],
    [{ S3_BUCKET: 'b', S3_PART_SIZE: '1048576' }, 'S3_PART_SIZE'],
  ])('refuses %j (%s)', (env, field) => {
    const c = parse(env as Record<string, string>);
    expect(c.success).toBe(false);
    expect(c.error?.issues.map((i) => i.path.join('.'))).toContain(field);
  });

  it('accepts an absolute STORAGE_DIR in production', () => {
    expect(parse({ NODE_ENV: 'production', STORAGE_DIR: '/var/lib/coffer/storage' }).success).toBe(true);
  });
});
