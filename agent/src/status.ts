// The daemon's status file (`agent.status.json` beside `agent.json`; named after its config, in
// the state folder: config.ts statusPathFor): the daemon rewrites it at least every
// STATUS_HEARTBEAT_MS; `coffer-agent status --config X` reads X's. Nothing secret goes in it.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from './config/files.js';

export const STATUS_HEARTBEAT_MS = 15_000;
/** A status older than this (or whose pid is gone) means the daemon is not running. */
export const STATUS_STALE_MS = 60_000;

export const AgentStatusSchema = z.looseObject({
  pid: z.number().int().positive(),
  version: z.string(),
  startedAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  /** Connected to the gateway right now. */
  connected: z.boolean(),
  server: z.string().optional(),
  /** The Database Tools it runs: "PATH (FIRST LINE OF --version)", one per tool. */
  tools: z.array(z.string()).optional(),
  /** What the daemon is doing, if anything. */
  activity: z
    .object({
      kind: z.enum(['backup', 'restore', 'verify']),
      database: z.string(),
      id: z.string(),
      startedAt: z.iso.datetime(),
      progress: z
        .object({
          current: z.number(),
          total: z.number(),
          percentage: z.number(),
          collection: z.string(),
          estimated: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
  lastError: z.string().optional(),
});

export type AgentStatus = z.infer<typeof AgentStatusSchema>;

export type StatusReading =
  | { state: 'running'; status: AgentStatus }
  | {
      state: 'not-running';
      reason: 'no-status-file' | 'stale' | 'process-gone' | 'unreadable';
      status?: AgentStatus;
    };

export async function writeStatus(file: string, status: AgentStatus): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(AgentStatusSchema.parse(status), null, 2) + '\n');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function readStatus(file: string, now = Date.now()): Promise<StatusReading> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { state: 'not-running', reason: 'no-status-file' };
  }
  let status: AgentStatus;
  try {
    status = AgentStatusSchema.parse(JSON.parse(text));
  } catch {
    return { state: 'not-running', reason: 'unreadable' };
  }
  if (now - Date.parse(status.updatedAt) > STATUS_STALE_MS)
    return { state: 'not-running', reason: 'stale', status };
  if (!processAlive(status.pid)) return { state: 'not-running', reason: 'process-gone', status };
  return { state: 'running', status };
}
