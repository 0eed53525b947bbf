// Files a command is writing under a temporary name (decrypt's `.OUT.<pid>.partial`). The command
// removes its own on failure; these are what is left when it never got to: the process ending
// while the command had not finished (a stream that never settled) must not leave plaintext behind.
import { rmSync } from 'node:fs';

const pending = new Set<string>();

/** Remember `file` until the returned function is called (after rename or removal). */
export function trackPartial(file: string): () => void {
  pending.add(file);
  return () => pending.delete(file);
}

/** Removes every partial file still tracked (synchronously: it runs as the process ends). */
export function removePartials(): void {
  for (const file of pending) rmSync(file, { force: true });
  pending.clear();
}
