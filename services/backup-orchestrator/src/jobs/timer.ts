import type { Logger } from '@coffer/common';

export interface Timer {
  stop(): Promise<void>;
}

/**
 * Runs `work` every `intervalMs`, never two runs at once (the next waits for the previous to end).
 * A failed run is logged and the timer carries on; stop() waits for a run in flight.
 */
export function every(
  name: string,
  intervalMs: number,
  work: () => Promise<unknown>,
  log: Pick<Logger, 'warn'>,
): Timer {
  let stopped = false;
  let handle: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    handle = setTimeout(() => {
      running = work()
        .then(
          () => undefined,
          (err: unknown) => log.warn({ err, job: name }, 'scheduled work failed; retrying next tick'),
        )
        .finally(schedule);
    }, intervalMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(handle);
      await running;
    },
  };
}
