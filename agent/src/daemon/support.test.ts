import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { readStatus } from '../status.js';
import { Backoff } from './backoff.js';
import { createLogger } from './log.js';
import { StatusFile } from './status-file.js';
import { sweepToolConfigs } from './sweep.js';
import { Throttle } from './throttle.js';

describe('Backoff', () => {
  it('doubles from 1 s to 30 s, jittered by up to ±50 %, and starts over after reset', () => {
    const mid = new Backoff(1000, 30_000, 0.5, () => 0.5);
    expect(Array.from({ length: 8 }, () => mid.next())).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
    mid.reset();
    expect(mid.next()).toBe(1000);
    const low = new Backoff(1000, 30_000, 0.5, () => 0);
    expect([low.next(), low.next(), low.next()]).toEqual([500, 1000, 2000]);
    const high = new Backoff(1000, 30_000, 0.5, () => 0.999999);
    expect([high.next(), high.next()]).toEqual([1500, 3000]);
    for (let i = 0; i < 10; i++) high.next();
    expect(high.next()).toBe(30_000); // never above the cap
  });
});

describe('Throttle', () => {
  afterEach(() => jest.useRealTimers());

  it('sends the first value at once, then the newest at most once per interval; stop drops the rest', () => {
    jest.useFakeTimers();
    const sent: number[] = [];
    const t = new Throttle<number>(1000, (v) => sent.push(v));
    t.push(1);
    t.push(2);
    t.push(3);
    expect(sent).toEqual([1]);
    jest.advanceTimersByTime(1000);
    expect(sent).toEqual([1, 3]);
    jest.advanceTimersByTime(5000);
    t.push(4); // long after the last one: at once
    expect(sent).toEqual([1, 3, 4]);
    t.push(5);
    t.stop();
    jest.advanceTimersByTime(5000);
    t.push(6);
    expect(sent).toEqual([1, 3, 4]);
  });
});

describe('log lines', () => {
  it('are JSON with time, level and message, and never show a secret', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (b: Buffer) => (text += b.toString()));
    const log = createLogger({
      out,
      secrets: () => ['cof_live_secret', 'coffer-key-v1:AAAA'],
      now: () => new Date('2025-01-02T03:04:05.000Z'),
    });
    log.info('connected', { server: 'http://x' });
    log.error('backup failed', {
      err: new Error('auth failed for mongodb://bob:pa55@db/x with cof_live_secret'),
    });
    log.debug('hidden');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { time: '2025-01-02T03:04:05.000Z', level: 'info', msg: 'connected', server: 'http://x' },
      {
        time: '2025-01-02T03:04:05.000Z',
        level: 'error',
        msg: 'backup failed',
        err: { message: 'auth failed for mongodb://bob:****@db/x with ****' },
      },
    ]);
  });
});

describe('StatusFile', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-status-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes what `coffer-agent status` reads: connection, agent id and the running job with progress', async () => {
    const file = path.join(dir, 'agent.status.json');
    const s = new StatusFile(file, {
      pid: process.pid,
      version: '0.1.0',
      startedAt: new Date().toISOString(),
      server: 'http://127.0.0.1:8080',
    });
    s.update({ connected: true, agentId: 'a'.repeat(24) });
    s.update({
      jobs: [
        {
          id: 'b'.repeat(24),
          kind: 'backup',
          database: 'shop',
          startedAt: new Date().toISOString(),
          phase: 'dumping',
          progress: { current: 5, total: 10, percentage: 50, collection: 'orders' },
        },
      ],
    });
    await s.flush();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const reading = await readStatus(file);
    expect(reading.state).toBe('running');
    expect(reading.status).toMatchObject({
      connected: true,
      agentId: 'a'.repeat(24),
      activity: { kind: 'backup', database: 'shop', progress: { percentage: 50, collection: 'orders' } },
      jobs: [{ phase: 'dumping' }],
    });
    s.update({ connected: false, jobs: [] });
    await s.flush();
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after.connected).toBe(false);
    expect(after.activity).toBeUndefined();
  });
});

describe('sweepToolConfigs', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-sweep-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('removes stale tool-config folders a killed agent left, and nothing else', async () => {
    const make = (name: string, files: string[], ageMs: number) => {
      const d = path.join(dir, name);
      mkdirSync(d, { mode: 0o700 });
      for (const f of files) writeFileSync(path.join(d, f), 'uri: "mongodb://u:p@h/db"\n', { mode: 0o600 });
      const t = new Date(Date.now() - ageMs);
      utimesSync(d, t, t);
    };
    make('coffer-agent-Old123', ['tool-config.yaml'], 60 * 60_000);
    make('coffer-agent-Empty1', [], 60 * 60_000);
    make('coffer-agent-New123', ['tool-config.yaml'], 1000); // a tool may be starting with it
    make('coffer-agent-Other1', ['tool-config.yaml', 'something-else'], 60 * 60_000);
    make('unrelated-Old123', ['tool-config.yaml'], 60 * 60_000);
    expect(await sweepToolConfigs(dir)).toBe(2);
    expect(readdirSync(dir).sort()).toEqual([
      'coffer-agent-New123',
      'coffer-agent-Other1',
      'unrelated-Old123',
    ]);
  });
});
