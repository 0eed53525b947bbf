// The daemon's side of an `update` command when the host turned updates off: refused before the
// server is asked anything, reported (agent:update → the dashboard and the audit log), and the
// running version stays.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { UpdateOutcome } from '../update/updater.js';
import { createLogger } from './log.js';
import { createUpdater } from './update.js';

let state: string;
beforeEach(() => (state = mkdtempSync(path.join(os.tmpdir(), 'coffer-daemon-update-'))));
afterEach(() => rmSync(state, { recursive: true, force: true }));

function updater(updatesAllowed: boolean) {
  const reports: UpdateOutcome[] = [];
  const fetched: string[] = [];
  const restarts: string[] = [];
  let logged = '';
  const out = new PassThrough();
  out.on('data', (b: Buffer) => (logged += b.toString()));
  const u = createUpdater({
    server: 'http://127.0.0.1:9',
    version: '0.2.0',
    stateDir: state,
    execPath: path.join(state, 'coffer-agent'),
    singleExecutable: true,
    supervised: true,
    log: createLogger({ out, secrets: () => [] }),
    report: (o) => {
      reports.push(o);
      return Promise.resolve(true);
    },
    updatesAllowed: () => updatesAllowed,
    restart: (reason) => restarts.push(reason),
    fetchImpl: (url) => {
      fetched.push(String(url));
      return Promise.resolve(new Response('not found', { status: 404 }));
    },
  });
  return { u, reports, fetched, restarts, logged: () => logged };
}

it('refuses an update command while updates are off on the host, and reports why', async () => {
  const { u, reports, fetched, restarts, logged } = updater(false);
  await u.run();
  expect(reports).toEqual([
    {
      status: 'failed',
      fromVersion: '0.2.0',
      toVersion: '0.2.0',
      error:
        'updates are turned off on this host (`coffer-agent config updates on` turns them on again); this version keeps running',
    },
  ]);
  expect(fetched).toEqual([]);
  expect(restarts).toEqual([]);
  expect(logged()).toMatch(/"msg":"the update failed".*updates are turned off on this host/);
});

it('with updates on, asks the server (here: it has no release) and reports that', async () => {
  const { u, reports, fetched } = updater(true);
  await u.run();
  expect(fetched).toEqual(['http://127.0.0.1:9/downloads/release.json']);
  expect(reports).toEqual([
    expect.objectContaining({ status: 'failed', error: expect.stringMatching(/no agent release/) }),
  ]);
});
