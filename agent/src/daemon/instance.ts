// The agent's instance id: how the server tells this installation from another agent of the same
// user. It lives in the state folder (a service's config may be read-only to the service), in a
// file named after the config (config.ts instancePathFor), so two configs in one folder are two
// agents; an older agent kept it in the config, which is still read when the file is missing.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { INSTANCE_ID_PATTERN } from '@coffer/contracts';
import { writeFileAtomic } from '../config/files.js';

/** The instance file of the usual config, `agent.json`. */
export const INSTANCE_FILE = 'agent.instance-id';

/** What the gateway accepts in the handshake. */
const valid = (id: unknown): id is string => typeof id === 'string' && INSTANCE_ID_PATTERN.test(id);

/** The id kept in `file`, else the config's legacy one, else a new one; saved in `file`. */
export async function loadInstanceId(file: string, legacy?: unknown): Promise<string> {
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

/** A reset: a new id in `file`, so the server sees a new agent. */
export async function renewInstanceId(file: string): Promise<string> {
  const id = randomUUID();
  await writeFileAtomic(file, `${id}\n`);
  return id;
}
