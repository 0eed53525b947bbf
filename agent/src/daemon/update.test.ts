// The daemon's side of an `update` command when the host turned updates off: refused before the
// server is asked anything, reported (agent:update → the dashboard and the audit log), and the
// running version stays.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { RESULT_FILE, type UpdateOutcome } from '../update/updater.js';
import { createLogger } from './log.js';
import { createUpdater, type UpdateReportAnswer } from './update.js';

let state: string;
beforeEach(() => (state = mkdtempSync(path.join(os.tmpdir(), 'coffer-daemon-update-'))));
afterEach(() => rmSync(state, { recursive: true, force: true }));

function updater(
  updatesAllowed: boolean,
  opts: { answer?: () => UpdateReportAnswer; resend?: { firstMs: number; maxMs: number } } = {},
) {
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
      return Promise.resolve(opts.answer?.() ?? 'recorded');
    },
    updatesAllowed: () => updatesAllowed,
    restart: (reason) => restarts.push(reason),
    fetchImpl: (url) => {
      fetched.push(String(url));
      return Promise.resolve(new Response('not found', { status: 404 }));
    },
    resend: opts.resend,
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

const until = async (done: () => boolean) => {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
};
const kept = () => existsSync(path.join(state, RESULT_FILE));

it('keeps an outcome the server did not take and sends it again until it is acknowledged (issue 21)', async () => {
  const answers: UpdateReportAnswer[] = ['not-recorded', 'not-recorded', 'recorded'];
  const { u, reports } = updater(false, {
    answer: () => answers.shift() ?? 'recorded',
    resend: { firstMs: 10, maxMs: 20 },
  });
  await u.run();
  // Not acknowledged: it waits in the state folder (a restart would report it too).
  expect(kept()).toBe(true);
  await until(() => reports.length === 3 && !kept());
  expect(reports).toHaveLength(3);
  expect(new Set(reports.map((r) => JSON.stringify(r))).size).toBe(1);
  expect(kept()).toBe(false);
  // Acknowledged once: nothing more is sent, also not after a reconnect.
  await u.reportPending();
  expect(reports).toHaveLength(3);
  u.stop();
});

it('after a restart, reports the outcome an earlier process could not get acknowledged', async () => {
  const lost = updater(false, { answer: () => 'not-recorded' });
  await lost.u.run();
  lost.u.stop();
  expect(lost.reports).toEqual([expect.objectContaining({ status: 'failed' })]);
  // The next process (same state folder) sends it once it has registered.
  const next = updater(true);
  await next.u.reportPending();
  expect(next.reports).toEqual(lost.reports);
  expect(kept()).toBe(false);
});

it('drops an outcome the server refuses for good (the agent was removed) rather than sending it forever', async () => {
  const { u, reports } = updater(false, { answer: () => 'refused', resend: { firstMs: 10, maxMs: 20 } });
  await u.run();
  await new Promise((r) => setTimeout(r, 100));
  expect(reports).toHaveLength(1);
  expect(kept()).toBe(false);
});
