import { createLogger, onShutdown } from '@coffer/common';
import { loadStorageConfig } from './config.js';
import { startStorage } from './app.js';

async function main() {
  const config = loadStorageConfig();
  const log = createLogger('storage', config.LOG_LEVEL);
  const running = await startStorage(config, log);
  onShutdown(log, running.shutdownSteps);
}

main().catch((err: unknown) => {
  createLogger('storage').fatal({ err }, 'storage failed to start');
  process.exit(1);
});
