import fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const stack = globalThis.__cofferStack;
  if (!stack) return;
  globalThis.__cofferStack = undefined;
  await stack.stop();
  const dataDir = process.env.COFFER_DATA_DIR;
  if (dataDir && !process.env.COFFER_KEEP_TEST_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
}
