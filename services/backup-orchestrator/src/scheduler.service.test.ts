// Service test: two orchestrator replicas (real processes) against real NATS JetStream and FerretDB,
// with auth and storage played by tiny in-test gRPC servers built from the real service definitions.
// The slot length is shrunk (SCHEDULER_SLOT_SECONDS) so several hourly slots pass in seconds; the
// test asserts that every slot produced exactly one auto backup and exactly one agent command.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import mongoose from 'mongoose';
import { backupFrequency, backupType, jobStatus } from '@coffer/common';
import { auth, type common, orchestrator, schedule, storage } from '@coffer/proto';
import { agentRegistration } from './test-world';
import {
  connectEventBus,
  createLogger,
  grpcClient,
  identityEnv,
  serviceIdentities,
  type AgentCommand,
  type EventBus,
  type EventMap,
} from '@coffer/common';
import {
  freePort,
  startFerretDb,
  startNats,
  startProcess,
  waitFor,
  TEST_PRO_PLAN,
  TEST_USER_ID as USER,
  type Proc,
  type RunningServer,
} from '@coffer/local-stack';

const ROOT = path.resolve(__dirname, '../../..');
const MAIN = path.join(ROOT, 'services/backup-orchestrator/dist/main.js');
const SLOT_SECONDS = 3; // one "hour" of the hourly schedule lasts 3 s
const SLOTS_TO_SEE = 4;
// The replicas take calls from the test's client, which signs as the gateway.
const ids = serviceIdentities(['backup-orchestrator', 'gateway']);

jest.setTimeout(180_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** auth: GetUserPlan (hourly allowed) and GetAccountState (not banned). storage: Stat and Delete. Both with the generated definitions. */
async function fakeServices() {
  const server = new Server();
  const plan: auth.Plan = {
    ...TEST_PRO_PLAN,
    frequencyLimit: backupFrequency.toProto(TEST_PRO_PLAN.frequencyLimit),
  };
  server.addService(auth.AuthServiceService, {
    getUserPlan: (_call: unknown, cb: (e: null, p: auth.Plan) => void) => cb(null, plan),
    // The scheduler asks whether the account is banned before each scheduled backup.
    getAccountState: (call: { request: common.UserRef }, cb: (e: null, s: auth.AccountState) => void) =>
      cb(null, {
        userId: call.request.userId,
        role: auth.Role.ROLE_USER,
        isBanned: false,
        status: auth.AccountStatus.ACCOUNT_STATUS_ACTIVE,
        email: 'ada@example.com',
        name: 'Ada',
        sessionVersion: 0,
        endedSessions: [],
      }),
  } as unknown as auth.AuthServiceServer);
  server.addService(storage.StorageServiceService, {
    delete: (_call: unknown, cb: (e: null, o: common.Ok) => void) => cb(null, {}),
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
  const servers: RunningServer[] = [];
  const replicas: Proc[] = [];
  let fakes: Awaited<ReturnType<typeof fakeServices>> | undefined;
  let bus: EventBus | undefined;
  let mongo: mongoose.Connection | undefined;
  let clients: Array<ReturnType<typeof grpcClient<orchestrator.OrchestratorServiceClient>>> = [];
  let heartbeat: NodeJS.Timeout | undefined;
  let natsUrl = '';
  let mongoUri = '';
  const dbName = `coffer_orchestrator_test_${process.pid}`;

  beforeAll(async () => {
    execFileSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'services/backup-orchestrator'],
      {
        cwd: ROOT,
        stdio: 'inherit',
      },
    );

    const started = await Promise.allSettled([startNats({ dataDir: dir }), startFerretDb({ dataDir: dir })]);
    servers.push(...started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])));
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    [natsUrl, mongoUri] = servers.map((x) => x.url) as [string, string];
    fakes = await fakeServices();

    for (const name of ['replica-a', 'replica-b']) {
      const grpcPort = await freePort();
      const p = startProcess(name, process.execPath, [MAIN], {
        logDir: dir,
        env: {
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
          ...identityEnv(ids['backup-orchestrator']),
        },
      });
      replicas.push(p);
      const client = grpcClient(orchestrator.OrchestratorServiceClient, `127.0.0.1:${grpcPort}`, {
        identity: ids.gateway,
        callee: 'backup-orchestrator',
      });
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
    for (const p of replicas) await p.stop();
    for (const x of servers) await x.stop();
    await fakes?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates exactly one auto backup and one agent command per due slot', async () => {
    const [a, b] = clients as [(typeof clients)[0], (typeof clients)[0]];
    // Hourly before the agent appears, so the first slot is already an hourly one.
    await b.updateSettings({ userId: USER, frequency: schedule.BackupFrequency.BACKUP_FREQUENCY_HOURLY });
    const { agentId, databases } = await a.registerAgent(
      agentRegistration({ instanceId: 'service-test-agent', name: 'db-1', hostname: 'db-1.test' }),
    );
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
            kind: orchestrator.CommandKind.COMMAND_KIND_BACKUP,
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
    // JetStream kept one due message per slot although both replicas' ticks published. A slot that
    // came due before the agent registered (a slow machine) has a due message and, rightly, no backup.
    const dueSlots = due.map((d) => d.slot).sort((x, y) => x - y);
    expect(new Set(dueSlots).size).toBe(dueSlots.length);
    expect(dueSlots).toEqual(expect.arrayContaining(sorted));
    expect(dueSlots.filter((slot) => !sorted.includes(slot)).every((slot) => slot < sorted[0]!)).toBe(true);

    // The agent's reports went through: the backups completed with the size storage counted.
    expect(agentErrors).toEqual([]);
    const listed = (await a.listBackups({ userId: USER })).backups;
    expect(listed).toHaveLength(backups.length);
    expect(
      listed.filter((x) => jobStatus.fromAnswer(x.status) === 'completed').length,
    ).toBeGreaterThanOrEqual(SLOTS_TO_SEE);
    expect(
      listed.every(
        (x) =>
          backupType.fromAnswer(x.type) === 'auto' &&
          (jobStatus.fromAnswer(x.status) !== 'completed' || x.size === 1234),
      ),
    ).toBe(true);
    // Both replicas ran the scheduler (each logs its ticks' work through the shared consumer).
    for (const p of replicas) expect(p.child.exitCode).toBeNull();
  });
});
