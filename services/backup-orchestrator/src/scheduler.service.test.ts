// Service test: two orchestrator replicas (real processes) against real NATS JetStream and FerretDB,
// with auth and storage played by tiny in-test gRPC servers built from the real service definitions.
// The slot length is shrunk (SCHEDULER_SLOT_SECONDS) so several hourly slots pass in seconds; the
// test asserts that every slot produced exactly one auto backup and exactly one agent command.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import mongoose from 'mongoose';
import { auth, orchestrator, storage } from '@coffer/proto';
import { orchestratorModels } from './model';
import { mongoStores } from './store/index';
import {
  connectEventBus,
  createLogger,
  grpcClient,
  isDuplicateKeyError,
  type AgentCommand,
  type EventBus,
  type EventMap,
} from '@coffer/common';

const ROOT = path.resolve(__dirname, '../../..');
const MAIN = path.join(ROOT, 'services/backup-orchestrator/dist/main.js');
const USER = '64b7f0c2a1b2c3d4e5f60718';
const SLOT_SECONDS = 3; // one "hour" of the hourly schedule lasts 3 s
const SLOTS_TO_SEE = 4;

jest.setTimeout(180_000);

function which(bin: string): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, bin);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  throw new Error(
    `'${bin}' was not found on PATH; the scheduler service test needs it (run deploy/local/bootstrap.sh, ` +
      'then add its bin folder, e.g. ~/.cache/coffer/bin, to PATH)',
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, proc?: Started) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc && proc.child.exitCode !== null) throw new Error(`${what} exited early${tail(proc)}`);
    if (await check().catch(() => false)) return;
    await sleep(150);
  }
  throw new Error(`${what} was not ready after ${timeoutMs / 1000} s${proc ? tail(proc) : ''}`);
}

const listening = (port: number) => () =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

interface Started {
  name: string;
  log: string;
  child: ChildProcess;
}

function start(dir: string, name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Started {
  const log = path.join(dir, `${name}.log`);
  const out = fs.openSync(log, 'a');
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  return { name, log, child };
}

function tail(p: Started): string {
  try {
    return `; last lines of ${p.name}:\n${fs.readFileSync(p.log, 'utf8').trimEnd().split('\n').slice(-15).join('\n')}`;
  } catch {
    return '';
  }
}

function stop(p: Started): Promise<void> {
  return new Promise((resolve) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
    const kill = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
    p.child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    p.child.kill('SIGTERM');
  });
}

/** auth: GetUserPlan only (hourly allowed). storage: Stat and Delete. Both with the generated definitions. */
async function fakeServices() {
  const server = new Server();
  const plan: auth.Plan = {
    id: 'p',
    name: 'Pro',
    price: 29,
    popular: true,
    dbLimit: 10,
    retentionLimit: 2160,
    storageLimit: 10 * 1024 ** 3,
    frequencyLimit: 1,
    features: [],
  };
  server.addService(auth.AuthServiceService, {
    getUserPlan: (_call: unknown, cb: (e: null, p: auth.Plan) => void) => cb(null, plan),
  } as unknown as auth.AuthServiceServer);
  server.addService(storage.StorageServiceService, {
    stat: (call: { request: storage.BlobRef }, cb: (e: null, i: storage.BlobInfo) => void) =>
      cb(null, {
        userId: call.request.userId,
        blobId: call.request.blobId,
        size: 1234,
        sha256: '',
        createdAt: new Date().toISOString(),
        keyFingerprint: 'fp-test',
      }),
    delete: (_call: unknown, cb: (e: null, o: storage.Ok) => void) => cb(null, {}),
  } as unknown as storage.StorageServiceServer);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.tryShutdown(() => r())),
  };
}

describe('scheduler with two replicas (real NATS, FerretDB)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-orchestrator-'));
  const procs: Started[] = [];
  let fakes: Awaited<ReturnType<typeof fakeServices>> | undefined;
  let bus: EventBus | undefined;
  let mongo: mongoose.Connection | undefined;
  let clients: Array<ReturnType<typeof grpcClient<orchestrator.OrchestratorServiceClient>>> = [];
  let heartbeat: NodeJS.Timeout | undefined;
  let natsUrl = '';
  let mongoUri = '';
  const dbName = `coffer_orchestrator_test_${process.pid}`;

  beforeAll(async () => {
    const natsBin = which('nats-server');
    const ferretBin = which('ferretdb');
    execFileSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'services/backup-orchestrator'],
      {
        cwd: ROOT,
        stdio: 'inherit',
      },
    );

    const [natsPort, mongoPort] = [await freePort(), await freePort()];
    for (const d of ['nats', 'ferretdb', 'ferretdb-state']) fs.mkdirSync(path.join(dir, d));
    const nats = start(dir, 'nats', natsBin, [
      '-js',
      '-sd',
      path.join(dir, 'nats'),
      '-a',
      '127.0.0.1',
      '-p',
      String(natsPort),
    ]);
    const ferret = start(dir, 'ferretdb', ferretBin, [
      '--handler=sqlite',
      `--sqlite-url=file:${path.join(dir, 'ferretdb')}/`,
      `--state-dir=${path.join(dir, 'ferretdb-state')}`,
      '--telemetry=disable',
      '--log-level=warn',
      '--debug-addr=-',
      `--listen-addr=127.0.0.1:${mongoPort}`,
    ]);
    procs.push(nats, ferret);
    await waitFor('nats-server', listening(natsPort), 30_000, nats);
    await waitFor('ferretdb', listening(mongoPort), 30_000, ferret);
    natsUrl = `nats://127.0.0.1:${natsPort}`;
    mongoUri = `mongodb://127.0.0.1:${mongoPort}`;
    fakes = await fakeServices();

    for (const name of ['replica-a', 'replica-b']) {
      const grpcPort = await freePort();
      const p = start(dir, name, process.execPath, [MAIN], {
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        NATS_URL: natsUrl,
        MONGODB_URI: mongoUri,
        ORCHESTRATOR_DB: dbName,
        AUTH_GRPC: fakes.address,
        STORAGE_GRPC: fakes.address,
        GRPC_LISTEN: `127.0.0.1:${grpcPort}`,
        OPS_PORT: String(await freePort()),
        SCHEDULER_TICK_MS: '500',
        SCHEDULER_SLOT_SECONDS: String(SLOT_SECONDS),
      });
      procs.push(p);
      const client = grpcClient(orchestrator.OrchestratorServiceClient, `127.0.0.1:${grpcPort}`);
      clients.push(client);
      await waitFor(name, () => client.systemStatus({ userId: USER }).then(() => true), 60_000, p);
    }
    bus = await connectEventBus({
      url: natsUrl,
      name: 'service-test',
      log: createLogger('test', 'silent'),
      streams: ['AGENT', 'BACKUP'],
    });
    mongo = await mongoose.createConnection(mongoUri, { dbName, retryWrites: false }).asPromise();
  });

  afterAll(async () => {
    clearInterval(heartbeat);
    await bus?.close().catch(() => undefined);
    await mongo?.close().catch(() => undefined);
    for (const c of clients) c.close();
    clients = [];
    // Replicas first (they hold NATS and Mongo connections), then the servers.
    for (const p of [...procs].reverse()) await stop(p);
    await fakes?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates exactly one auto backup and one agent command per due slot', async () => {
    const [a, b] = clients as [(typeof clients)[0], (typeof clients)[0]];
    // Hourly before the agent appears, so the first slot is already an hourly one.
    await b.updateSettings({ userId: USER, frequency: 1 });
    const { agentId, databases } = await a.registerAgent({
      userId: USER,
      instanceId: 'service-test-agent',
      name: 'db-1',
      hostname: 'db-1.test',
      platform: 'linux',
      version: '1.0.0',
      databases: ['shop'],
    });
    expect(databases).toEqual([expect.objectContaining({ name: 'shop', isActive: true })]);
    heartbeat = setInterval(() => {
      void b
        .agentHeartbeat({ userId: USER, agentId, runningJobs: [], databases: ['shop'] })
        .catch(() => undefined);
    }, 1000);

    // The agent: every command it receives (from the AGENT stream, as a gateway would) is acknowledged,
    // uploaded and completed, alternating replicas.
    const commands: AgentCommand[] = [];
    const agentErrors: unknown[] = [];
    await bus!.consume({
      stream: 'AGENT',
      durable: 'service-test-agent',
      subjects: ['agent.command.requested'],
      handler: async (e) => {
        const cmd = e.data as AgentCommand;
        commands.push(cmd);
        if (cmd.kind !== 'backup') return;
        const rpc = commands.length % 2 ? a : b;
        try {
          await rpc.commandDelivery({
            userId: USER,
            agentId,
            commandId: cmd.commandId,
            kind: 'backup',
            jobId: cmd.jobId,
            delivered: true,
          });
          await rpc.beginUpload({ userId: USER, agentId, backupId: cmd.jobId! });
          await rpc.completeBackup({
            userId: USER,
            agentId,
            backupId: cmd.jobId!,
            size: 1234,
            keyFingerprint: 'fp-test',
          });
        } catch (err) {
          agentErrors.push(err);
        }
      },
    });
    const due: Array<EventMap['backup.schedule.due']> = [];
    await bus!.consume({
      stream: 'BACKUP',
      durable: 'service-test-due',
      subjects: ['backup.schedule.due'],
      handler: async (e) => {
        due.push(e.data as EventMap['backup.schedule.due']);
      },
    });

    const autos = () => mongo!.db!.collection('backups').find({ type: 'auto' }).toArray();
    await waitFor(
      `${SLOTS_TO_SEE} scheduled backups`,
      async () => (await autos()).length >= SLOTS_TO_SEE,
      (SLOTS_TO_SEE + 4) * SLOT_SECONDS * 1000,
    );
    await sleep(1500); // let in-flight work of the last slot settle

    const backups = await autos();
    const slots = backups.map((d) => Number(String(d.scheduleSlot).replace('auto:1h:', '')));
    // One backup per slot, and no slot skipped between the first and the last.
    expect(new Set(slots).size).toBe(slots.length);
    const sorted = [...slots].sort((x, y) => x - y);
    expect(sorted).toEqual(sorted.map((_, i) => sorted[0]! + i));
    expect(slots.length).toBeGreaterThanOrEqual(SLOTS_TO_SEE);

    // One command per backup, none repeated.
    const backupCommands = commands.filter((c) => c.kind === 'backup');
    expect(backupCommands.map((c) => c.jobId).sort()).toEqual(backups.map((d) => d._id.toHexString()).sort());
    // JetStream kept one due message per slot although both replicas' ticks published.
    expect(due.map((d) => d.slot).sort((x, y) => x - y)).toEqual(sorted);

    // The agent's reports went through: the backups completed with the size storage counted.
    expect(agentErrors).toEqual([]);
    const listed = (await a.listBackups({ userId: USER })).backups;
    expect(listed).toHaveLength(backups.length);
    expect(listed.filter((x) => x.status === 'completed').length).toBeGreaterThanOrEqual(SLOTS_TO_SEE);
    expect(listed.every((x) => x.type === 'auto' && (x.status !== 'completed' || x.size === 1234))).toBe(
      true,
    );
    // Both replicas ran the scheduler (each logs its ticks' work through the shared consumer).
    for (const p of procs.slice(2)) expect(p.child.exitCode).toBeNull();
  });
  it("runs the stores' conditional updates and queries on FerretDB", async () => {
    const conn = await mongoose
      .createConnection(mongoUri, { dbName: `${dbName}_stores`, retryWrites: false })
      .asPromise();
    try {
      const models = orchestratorModels(conn);
      await Promise.all(Object.values(models).map((m) => m.init()));
      const stores = mongoStores(models);
      const t0 = new Date('2025-06-01T00:00:00Z');
      const hours = (h: number) => new Date(t0.getTime() + h * 3_600_000);

      // Agents: upsert by instance, "new" again after a reset.
      const reg = {
        userId: USER,
        instanceId: 'i1',
        name: 'n',
        hostname: 'h',
        platform: 'linux',
        version: '1',
        databases: ['shop'],
      };
      const first = await stores.agents.register(reg, t0);
      expect(first.isNew).toBe(true);
      expect((await stores.agents.register(reg, hours(1))).isNew).toBe(false);
      await stores.agents.retire(USER, first.agent.id);
      expect(await stores.agents.list(USER)).toEqual([]);
      expect((await stores.agents.register(reg, hours(2))).isNew).toBe(true);

      // Settings: defaults on insert, the previous values on update.
      const s1 = await stores.settings.save(USER, { retention: 168 }, { frequency: 24, retention: 72 });
      expect(s1).toEqual({ before: null, after: { frequency: 24, retention: 168 } });
      const s2 = await stores.settings.save(USER, { frequency: 1 }, { frequency: 24, retention: 72 });
      expect(s2).toEqual({
        before: { frequency: 24, retention: 168 },
        after: { frequency: 1, retention: 168 },
      });

      // Backups: the unique slot, conditional transitions, retention claims, stats.
      const backup = (
        id: string,
        h: number,
        status: 'completed' | 'failed' | 'in-progress',
        slot = `manual:${id}`,
      ) =>
        stores.backups.insert({
          id,
          userId: USER,
          databaseName: 'shop',
          agentId: first.agent.id,
          type: 'manual',
          status,
          size: 100,
          keyFingerprint: null,
          createdAt: hours(h),
          commandId: `c-${id}`,
          commandSentAt: hours(h),
          scheduleSlot: slot,
          deleteReason: null,
          deletingSince: null,
        });
      const ids = ['a', 'b', 'c', 'd'].map((x) => x.repeat(24));
      await backup(ids[0]!, 0, 'completed', 'auto:1h:1');
      await backup(ids[1]!, 1, 'failed');
      await backup(ids[2]!, 2, 'completed');
      await backup(ids[3]!, 3, 'in-progress');
      const dup = await backup('e'.repeat(24), 4, 'completed', 'auto:1h:1').catch((e: unknown) => e);
      expect(isDuplicateKeyError(dup)).toBe(true);
      expect(
        await stores.backups.transition({ id: ids[3]!, status: ['pending'] }, { status: 'failed' }),
      ).toBeNull();
      expect(
        await stores.backups.transition({ id: ids[3]!, status: ['in-progress'] }, { absentSince: hours(3) }),
      ).toMatchObject({
        absentSince: hours(3),
      });
      expect((await stores.backups.startedSince(USER, 'shop', hours(1))).map((b) => b.id)).toEqual([
        ids[2],
        ids[3],
      ]);
      expect((await stores.backups.latestStarted(USER, 'shop'))!.id).toBe(ids[3]);
      expect(await stores.backups.usersWithFinishedBefore(hours(10))).toEqual([USER]);
      const claimed = await stores.backups.claimExpired(USER, hours(10), hours(10), []);
      expect(claimed).toMatchObject({ id: ids[0], status: 'completed' });
      expect((await stores.backups.get(ids[0]!))!.status).toBe('deleting');
      expect((await stores.backups.claimExpired(USER, hours(10), hours(10), [ids[1]!]))!.id).toBe(ids[2]);
      expect(await stores.backups.reclaimStaleDeletion(hours(10), hours(11))).toBeNull();
      expect((await stores.backups.reclaimStaleDeletion(hours(11), hours(12)))!.status).toBe('deleting');
      expect((await stores.backups.list(USER, 10)).map((b) => b.id)).toEqual([ids[3], ids[1]]);
      await expect(stores.backups.stats()).resolves.toEqual({ totalCount: 2, totalSize: 200 });
    } finally {
      await conn.close();
    }
  });
});
