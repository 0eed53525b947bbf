// The agent's instance id: how the server tells this installation from another agent of the same
// user. It lives in the state folder (a service's config may be read-only to the service); an
// older agent kept it in the config, which is still read when the file is missing.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { INSTANCE_ID_PATTERN } from '@coffer/contracts';
import { writeFileAtomic } from '../config/files.js';

export const INSTANCE_FILE = 'agent.instance-id';

/** What the gateway accepts in the handshake. */
const valid = (id: unknown): id is string => typeof id === 'string' && INSTANCE_ID_PATTERN.test(id);

/** The id kept in `stateDir`, else the config's legacy one, else a new one; saved in `stateDir`. */
export async function loadInstanceId(stateDir: string, legacy?: unknown): Promise<string> {
  const file = path.join(stateDir, INSTANCE_FILE);
  try {
    const id = (await readFile(file, 'utf8')).trim();
    if (valid(id)) return id;
  } catch {
    // first run
  }
  const id = valid(legacy) ? legacy : randomUUID();
  await writeFileAtomic(file, `${id}\n`);
  return id;
}

/** A reset: a new id, so the server sees a new agent. */
export async function renewInstanceId(stateDir: string): Promise<string> {
  const id = randomUUID();
  await writeFileAtomic(path.join(stateDir, INSTANCE_FILE), `${id}\n`);
  return id;
}
