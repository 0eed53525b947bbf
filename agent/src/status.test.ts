import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readStatus, STATUS_STALE_MS, writeStatus, type AgentStatus } from './status.js';

describe('daemon status file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-status-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const status = (over: Partial<AgentStatus> = {}): AgentStatus => ({
    pid: process.pid,
    version: '0.1.0',
    startedAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    connected: true,
    ...over,
  });

  it('is not running without a file, or with garbage in it', async () => {
    const file = path.join(dir, 'agent.status.json');
    expect(await readStatus(file)).toEqual({ state: 'not-running', reason: 'no-status-file' });
    writeFileSync(file, '{"pid": "x"}');
    expect(await readStatus(file)).toEqual({ state: 'not-running', reason: 'unreadable' });
  });

  it('is running when fresh and the process exists', async () => {
    const file = path.join(dir, 'agent.status.json');
    await writeStatus(file, status());
    expect((await readStatus(file)).state).toBe('running');
  });

  it('is stale after STATUS_STALE_MS, and not running once the process is gone', async () => {
    const file = path.join(dir, 'agent.status.json');
    await writeStatus(file, status());
    expect(await readStatus(file, Date.now() + STATUS_STALE_MS + 1000)).toMatchObject({
      state: 'not-running',
      reason: 'stale',
    });
    await writeStatus(file, status({ pid: 2 ** 22 + 12345 }));
    expect(await readStatus(file)).toMatchObject({ state: 'not-running', reason: 'process-gone' });
  });
});
