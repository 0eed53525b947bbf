import type { Logger } from './logger.js';

/**
 * Runs the given steps in order on SIGTERM/SIGINT (stop taking work, finish in-flight work, close
 * connections), then exits. A second signal or an overrun of `timeoutMs` (SHUTDOWN_TIMEOUT_SECONDS:
 * long enough for a gateway or storage to finish an upload) exits at once.
 */
export function onShutdown(log: Logger, steps: Array<() => Promise<unknown>>, timeoutMs = 15_000): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    void (async () => {
      for (const step of steps) {
        await step().catch((err: unknown) => log.warn({ err }, 'shutdown step failed'));
      }
      log.info('stopped');
      process.exit(0);
    })();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
