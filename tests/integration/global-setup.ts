import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, TEST_ADMIN, type Stack } from '@coffer/local-stack';
import { TEST_STACK_ENV } from './stack-env';

declare global {
  var __cofferStack: Stack | undefined;
}

const SCHEDULER_TICK_MS = '5000';

/**
 * Starts the real stack once for every jest project that needs it (integration, browser):
 * NATS, FerretDB, Redis, MailDev and every service, on free ports in a fresh data folder.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.COFFER_BASE_URL) return; // another project of this run started it
  const repoRoot = path.resolve(__dirname, '../..');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-test-'));
  // The gateways serve a copy of the agent downloads: the update tests replace files in it.
  const downloads = path.join(dataDir, 'downloads');
  fs.cpSync(path.join(repoRoot, 'agent/dist/downloads'), downloads, { recursive: true });
  const admin = TEST_ADMIN;
  const stack = await startStack({
    repoRoot,
    dataDir,
    ports: 'free',
    // Replicas everywhere they matter: live events must cross gateways, and the scheduler must
    // start each due backup once with two orchestrators.
    gateways: 2,
    orchestrators: 2,
    // test.sh runs the backup round trip a second time with storage on S3 (MinIO).
    storageBackend: process.env.COFFER_STORAGE_BACKEND === 's3' ? 's3' : 'fs',
    agentDownloadsDir: downloads,
    env: {
      ...TEST_STACK_ENV,
      LOG_LEVEL: 'info',
      // Tests pose as different clients through X-Forwarded-For, so per-IP limits can be tested.
      TRUST_PROXY: 'loopback',
      // The contact page shows the deployment's own values (tests/browser/public-site.test.ts).
      SUPPORT_EMAIL: 'help@coffer.test',
      COMMUNITY_CHAT_URL: 'https://chat.coffer.test/invite/e2e',
      // A quicker scheduler, so a test can let several ticks pass (first-backup.test.ts).
      SCHEDULER_TICK_MS,
    },
  });
  globalThis.__cofferStack = stack;
  Object.assign(process.env, {
    COFFER_BASE_URL: stack.urls.app,
    COFFER_GATEWAY_URLS: stack.urls.gateways.join(','),
    COFFER_MAILDEV_URL: stack.urls.mailWeb,
    COFFER_NATS_URL: stack.urls.nats,
    COFFER_NATS_MONITOR_URL: stack.urls.natsMonitor,
    COFFER_MONGO_URL: stack.urls.mongo,
    COFFER_REDIS_URL: stack.urls.redis,
    COFFER_DATA_DIR: dataDir,
    COFFER_SCHEDULER_TICK_MS: SCHEDULER_TICK_MS,
    COFFER_DOWNLOADS_DIR: downloads,
    COFFER_STORAGE_BACKEND: stack.urls.s3 ? 's3' : 'fs',
    // Where the S3 backend's objects are (MinIO, with the credentials the stack made), for tests that look.
    COFFER_S3_URL: stack.urls.s3 ?? '',
    COFFER_S3_ACCESS_KEY_ID: stack.env.S3_ACCESS_KEY_ID ?? '',
    COFFER_S3_SECRET_ACCESS_KEY: stack.env.S3_SECRET_ACCESS_KEY ?? '',
    COFFER_LOG_DIR: stack.logDir,
    // Each service's gRPC address, for tests that call a service directly (security/).
    COFFER_GRPC_ADDRESSES: JSON.stringify(stack.grpc),
    COFFER_ADMIN_EMAIL: admin.email,
    COFFER_ADMIN_PASSWORD: admin.password,
    COFFER_SUPPORT_EMAIL: stack.env.SUPPORT_EMAIL,
    COFFER_COMMUNITY_CHAT_URL: stack.env.COMMUNITY_CHAT_URL,
  });
}
