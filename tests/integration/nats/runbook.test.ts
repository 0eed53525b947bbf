import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { DEAD_LETTER_STREAM, deadLetterSubject, natsConnectOptions } from '@coffer/common';
import { eventually } from '../helpers';

// docs/runbook.md, "NATS by hand", works as written: its shell blocks run unchanged (the local
// run's `.coffer-data/` is the test stack's data folder) against the stack's NATS with the `nats`
// CLI the bootstrap builds (--with-natscli), and the `ops` user it uses cannot change anything.

const run = promisify(execFile);
const RUNBOOK = path.resolve(__dirname, '../../../docs/runbook.md');
const env = () => ({
  ...process.env,
  PATH: `${path.join(os.homedir(), '.cache/coffer/bin')}:${process.env.PATH}`,
});
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = await connect({ ...natsConnectOptions(process.env.COFFER_NATS_URL!), name: 'runbook-test' });
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  await nc.drain();
});

/** The `sh` blocks of one section of the runbook, in order. */
function shellBlocks(section: string): string[] {
  const text = fs.readFileSync(RUNBOOK, 'utf8');
  const body = text.split(/^## /m).find((s) => s.startsWith(`${section}\n`));
  if (!body) throw new Error(`no section ${section}`);
  return [...body.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

it('runs the look, replay, purge and server-report commands as written', async () => {
  const dl = deadLetterSubject('AUTH', 'audit', 'MSG_TERMINATED');
  const poison = {
    id: randomUUID(),
    subject: 'auth.user.email_changed',
    occurredAt: new Date().toISOString(),
    data: { userId: `runbook-${randomUUID()}` },
  };
  const before =
    (await jsm.streams.info(DEAD_LETTER_STREAM, { subjects_filter: dl })).state.subjects?.[dl] ?? 0;
  await jetstream(nc).publish(poison.subject, JSON.stringify(poison), { msgID: poison.id });
  await eventually(async () => {
    const now =
      (await jsm.streams.info(DEAD_LETTER_STREAM, { subjects_filter: dl })).state.subjects?.[dl] ?? 0;
    expect(now).toBeGreaterThan(before);
  }, 30_000);

  const blocks = shellBlocks('NATS by hand');
  expect(blocks).toHaveLength(3);
  const dataDir = process.env.COFFER_DATA_DIR!;
  const script = blocks.join('\n').replaceAll('.coffer-data/', `${dataDir}/`);
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'runbook-'));
  try {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd,
      env: env(),
      timeout: 120_000,
    });
    expect(stdout).toContain('DEADLETTER');
    expect(stdout).toContain(poison.data.userId);
    expect(stdout).toContain('monitoring answers');
    // The system account's reports: this stack's one server, with the streams it holds.
    expect(stdout).toContain('JetStream Summary');
    expect(stdout).toMatch(/Server Overview|Name/);
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
  // Replayed: the same payload is the newest event on its subject.
  const last = await jsm.streams.getMessage('AUTH', { last_by_subj: poison.subject });
  expect(last!.json()).toEqual(poison);
});

it('gives the ops user no way to change or publish anything', async () => {
  const ops = `set -a; . ${process.env.COFFER_DATA_DIR}/nats-ops.env; set +a;`;
  await expect(run('bash', ['-c', `${ops} nats stream info AUTH`], { env: env() })).resolves.toBeDefined();
  for (const cmd of [
    `nats stream purge DEADLETTER -f`,
    `nats stream rm KB -f`,
    `nats pub --jetstream auth.user.deleted '{}'`,
    `nats consumer rm AUTH audit -f`,
  ]) {
    await expect(run('bash', ['-c', `${ops} ${cmd}`], { env: env(), timeout: 30_000 })).rejects.toThrow();
  }
  await expect(jsm.streams.info('KB')).resolves.toBeDefined();
  await expect(jsm.consumers.info('AUTH', 'audit')).resolves.toBeDefined();
});

it("gives the system account's user the servers' reports and none of Coffer's streams", async () => {
  const sys = `set -a; . ${process.env.COFFER_DATA_DIR}/nats-sys.env; set +a;`;
  const { stdout } = await run('bash', ['-c', `${sys} nats server report jetstream`], { env: env() });
  expect(stdout).toContain('JetStream Summary');
  await expect(
    run('bash', ['-c', `${sys} nats stream info AUTH`], { env: env(), timeout: 30_000 }),
  ).rejects.toThrow();
});
