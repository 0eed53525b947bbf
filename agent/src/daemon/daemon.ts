// `coffer-agent run`: keeps one Socket.IO connection to the gateway (namespace /agents), answers
// its commands, runs backups and restores, heartbeats, and mirrors its state into the status
// file. Connection strings and the master key stay in this process (docs/agent-protocol.md).
// This file wires the parts (connection, registration, dispatch, heartbeat, config watch, jobs,
// updates) and owns the two things that touch all of them: reset and shutdown.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { AgentHandshake } from '@coffer/contracts';
import {
  configIdFor,
  findDatabase,
  instancePathFor,
  keyFingerprintOf,
  loadConfig,
  masterKeyOf,
  restorePolicyOf,
  stateDirFor,
  statusPathFor,
  updatesAllowed,
} from '../config/config.js';
import { runBackup } from '../pipeline/backup.js';
import { redact } from '../pipeline/redact.js';
import { createRestoreVerifier, runRestore } from '../pipeline/restore.js';
import { runVerification } from '../pipeline/verify.js';
import { isSingleExecutable } from '../runtime/build-info.js';
import { socketAgent } from '../runtime/network.js';
import { describeTool, type ToolInfo } from '../runtime/preflight.js';
import { watchConfig, CONFIG_POLL_MS } from './config-watch.js';
import { createConnection, displayServer } from './connection.js';
import { commandListener } from './dispatch.js';
import { createHeartbeat, DEFAULT_HEARTBEAT_MS } from './heartbeat.js';
import { loadInstanceId, renewInstanceId } from './instance.js';
import { JobRunner, type JobDeps } from './jobs.js';
import { createLogger, type Logger } from './log.js';
import { registrationListener } from './registration.js';
import { announceLeaving, reportUpdate, socketReporter } from './reporter.js';
import { secretsOf } from './secrets.js';
import { connectionStatus, StatusFile } from './status-file.js';
import { startSweeping } from './sweep.js';
import { createUpdater } from './update.js';
import { downloadRestore, UploadSink, type ServerAccess } from './transfer.js';

/** Retry interval after the server refused the API key or the account is suspended. */
export const AUTH_RETRY_MS = 60_000;

export type DaemonOutcome = 'stopped' | 'restart';

export interface DaemonOptions {
  configPath: string;
  version: string;
  /** Where the log lines go (stdout). */
  out: Writable;
  env: NodeJS.ProcessEnv;
  /** What the start-up check found (logged once). */
  tools?: ToolInfo[];
  /** The proxy and private CA in use (runtime/network.ts), already applied to the process. */
  network?: { proxy?: string; caFile?: string };
  /**
   * Stand-ins for the pipeline's backup and restore (default runBackup, runRestore): the benchmark
   * injects its own (bench/lib/agent-run.mjs) so that the shipped agent reads no switch of it.
   */
  pipeline?: Partial<Pick<JobDeps, 'backup' | 'restore'>>;
}

export interface Daemon {
  /** Resolves when the daemon has stopped: 'restart' asks the caller to start a fresh process. */
  done: Promise<DaemonOutcome>;
  /** Stops taking commands, fails running jobs with `reason`, disconnects. */
  stop(reason?: string): Promise<void>;
}

const positiveInt = (text: string | undefined, fallback: number) => {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  let config = await loadConfig(opts.configPath);
  if (!config.server || !config.apiKey) {
    throw new Error('this config has no server or API key');
  }
  const stateDir = stateDirFor(opts.configPath, config);
  const instanceFile = instancePathFor(opts.configPath, config);
  let instanceId = await loadInstanceId(instanceFile, config.instanceId);
  const server = config.server;
  /** Replaced when `init` writes a new key into the config (config-watch): the next connect uses it. */
  let apiKey = config.apiKey;

  const log: Logger = createLogger({
    out: opts.out,
    secrets: () => secretsOf(config),
    debug: Boolean(opts.env.COFFER_DEBUG),
  });
  const scrub = (text: string) => redact(text, secretsOf(config));
  const status = new StatusFile(
    statusPathFor(opts.configPath, config),
    {
      pid: process.pid,
      version: opts.version,
      startedAt: new Date().toISOString(),
      server: displayServer(server),
      ...(opts.tools ? { tools: opts.tools.map(describeTool) } : {}),
    },
    (e) => log.warn('could not write the status file', { err: e }),
  );
  const connectionState = connectionStatus(status);

  let agentId: string | undefined;
  let stopping = false;
  let resolveDone!: (o: DaemonOutcome) => void;
  const done = new Promise<DaemonOutcome>((r) => (resolveDone = r));
  const databaseNames = () => config.databases.map((d) => d.name);

  const handshake = (): AgentHandshake => ({
    apiKey,
    instanceId,
    name: config.name,
    hostname: os.hostname(),
    configId: configIdFor(opts.configPath),
    platform: `${os.platform()}-${os.arch()}`,
    version: opts.version,
    databases: databaseNames(),
    keyFingerprint: keyFingerprintOf(config),
  });

  const connection = createConnection({
    server,
    handshake,
    log,
    status: connectionState,
    scrub,
    authRetryMs: positiveInt(opts.env.COFFER_AGENT_AUTH_RETRY_MS, AUTH_RETRY_MS),
    stopping: () => stopping,
    renewIdentity: async () => {
      instanceId = await renewInstanceId(instanceFile);
    },
    onDisconnect: () => heartbeat.stop(),
    agent: socketAgent(server, opts.network?.proxy),
  });
  const { socket } = connection;

  const heartbeat = createHeartbeat({
    socket,
    intervalMs: positiveInt(opts.env.HEARTBEAT_INTERVAL_MS, DEFAULT_HEARTBEAT_MS),
    payload: () => ({ runningJobs: runner.runningIds(), databases: databaseNames() }),
    log,
  });

  const access = (): ServerAccess => ({ server, apiKey, agentId: agentId ?? '' });

  const updater = createUpdater({
    server,
    version: opts.version,
    stateDir,
    execPath: process.execPath,
    singleExecutable: isSingleExecutable(),
    supervised: opts.env.COFFER_AGENT_SUPERVISED === '1',
    log,
    report: (outcome) => reportUpdate(socket, outcome),
    updatesAllowed: () => updatesAllowed(config),
    restart: (reason) => void shutdown(reason, 'restart'),
  });

  const runner = new JobRunner({
    reporter: socketReporter(socket),
    database: (label) => findDatabase(config, label),
    masterKey: () => masterKeyOf(config),
    restorePolicy: () => restorePolicyOf(config),
    openUpload: (backupId, fingerprint, onEnding) =>
      new UploadSink(access(), backupId, fingerprint, onEnding),
    download: (restoreId, file, o) => downloadRestore(access(), restoreId, file, o),
    backup: opts.pipeline?.backup ?? runBackup,
    restore: opts.pipeline?.restore ?? runRestore,
    verify: runVerification,
    verifier: createRestoreVerifier,
    makeTempDir: () => mkdtemp(path.join(os.tmpdir(), 'coffer-restore-')),
    removeDir: (dir) => rm(dir, { recursive: true, force: true }),
    log,
    onChange: () => status.update({ jobs: runner.list() }),
    onFailed: (job, error) => connectionState.jobFailed(`${job.kind} of "${job.database}" failed: ${error}`),
    scrub,
  });

  socket.on(
    'registered',
    registrationListener({
      log,
      configured: databaseNames,
      registered: (id) => {
        // A reconnect that lands while stopping must not make the agent look active again.
        if (stopping) return;
        agentId = id;
        connection.registered();
        status.update({ agentId, connected: true });
        heartbeat.start();
        void updater
          .reportPending()
          .catch((e: unknown) => log.warn('could not report the update', { err: e }));
      },
    }),
  );

  socket.on(
    'command',
    commandListener({
      log,
      stopping: () => stopping,
      registered: () => Boolean(agentId),
      acceptJob: (cmd) => runner.accept(cmd),
      update: () => void updater.run().catch((e: unknown) => log.error('the update failed', { err: e })),
      restart: () => void shutdown('Agent restarted', 'restart'),
      reset: () => void reset(),
    }),
  );

  /** New instance id: the server sees a new agent (the old record was retired by the reset). */
  async function reset(): Promise<void> {
    log.info('connection reset requested by the server; registering as a new agent');
    await runner.stopAll('Agent connection reset');
    try {
      instanceId = await renewInstanceId(instanceFile);
    } catch (e) {
      log.error('could not save the new instance id; keeping the old one', { err: e });
    }
    runner.reopen();
    agentId = undefined;
    status.update({ agentId: undefined });
    connection.reconnectNow();
  }

  async function shutdown(reason: string, outcome: DaemonOutcome): Promise<void> {
    if (stopping) return;
    stopping = true;
    log.info(outcome === 'restart' ? 'restarting' : 'stopping', { reason });
    // The server hears it first, so it shows this agent offline and sends it no job from now on;
    // then the running jobs stop and each reports its own reason while the socket is still open.
    heartbeat.stop();
    const told = await announceLeaving(socket, outcome === 'restart');
    if (told === 'recorded') log.info('the server knows this agent is leaving');
    else if (told !== 'not-connected')
      log.warn('could not tell the server this agent is leaving', { error: told.refused });
    await runner.stopAll(reason);
    updater.stop();
    stopSweeping();
    configWatch.stop();
    connection.close();
    status.stop();
    status.update({ connected: false, jobs: [] });
    await status.flush();
    resolveDone(outcome);
  }

  const stopSweeping = startSweeping(log);
  const configWatch = await watchConfig({
    path: opts.configPath,
    intervalMs: positiveInt(opts.env.COFFER_AGENT_CONFIG_POLL_MS, CONFIG_POLL_MS),
    log,
    stopping: () => stopping,
    current: () => config,
    use: (c) => (config = c),
    apiKeyChanged: () => {
      if (stopping || !config.apiKey) return;
      apiKey = config.apiKey;
      connection.reconnectNow();
    },
    databasesChanged: () => heartbeat.send(),
    masterKeyChanged: () => {
      if (!stopping) connection.reconnectNow();
    },
  });

  status.start();
  status.update({ connected: false });
  log.info('starting', {
    version: opts.version,
    node: process.version,
    ...(process.execArgv.length ? { nodeOptions: process.execArgv } : {}),
    ...(opts.tools ? { tools: opts.tools.map(describeTool) } : {}),
    stateDir,
    server: displayServer(server),
    ...opts.network,
    instanceId,
    databases: databaseNames(),
  });
  if (config.databases.length === 0)
    log.warn('no databases configured; add one with `coffer-agent db add NAME --uri -`');
  connection.connect();

  return {
    done,
    stop: (reason = 'Agent stopped') => shutdown(reason, 'stopped'),
  };
}
