import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../logger.js';

/** A logger whose JSON lines a test reads back (`lines`, parsed, in order). */
export function capturedLogger(
  name = 'test',
  level = 'info',
): { log: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n'))
        if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger(name, level, sink), lines };
}
