// `coffer-agent run`: keeps one Socket.IO connection to the gateway (namespace /agents), answers
// its commands, runs backups and restores, heartbeats, and mirrors its state into the status
// file. Connection strings and the master key stay in this process (docs/agent-protocol.md).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { io, type Socket } from 'socket.io-client';
import {
  findDatabase,
  loadConfig,
  masterKeyOf,
  stateDirFor,
  statusPathFor,
  type AgentConfig,
} from '../config/config.js';
import { uriSecrets } from '../config/uri.js';
import { runBackup } from '../pipeline/backup.js';
import { redact } from '../pipeline/redact.js';
import { runRestore } from '../pipeline/restore.js';
import { isSingleExecutable } from '../runtime/build-info.js';
import type { ToolInfo } from '../runtime/preflight.js';
import { Backoff } from './backoff.js';
import { isJobCommand, parseCommand, type Ack, type Command } from './commands.js';
import { loadInstanceId, renewInstanceId } from './instance.js';
import { JobRunner, type ReportAnswer, type Reporter } from './jobs.js';
import { createLogger, type Logger } from './log.js';
import { StatusFile } from './status-file.js';
import { sweepToolConfigs } from './sweep.js';
import { createUpdater } from './update.js';
import { downloadRestore, UploadSink, type ServerAccess } from './transfer.js';

export const DEFAULT_HEARTBEAT_MS = 15_000;
/** How long an acknowledged report (backup:failed, restore:completed, …) may wait for its answer. */
export const REPORT_TIMEOUT_MS = 10_000;
/** Retry interval after the server refused the API key or the account is suspended. */
export const AUTH_RETRY_MS = 60_000;
/** How often the config is looked at for databases added or removed while the daemon runs. */
export const CONFIG_POLL_MS = 5_000;

export type DaemonOutcome = 'stopped' | 'restart';

export interface DaemonOptions {
  configPath: string;
  version: string;
  /** Where the log lines go (stdout). */
  out: Writable;
  env: NodeJS.ProcessEnv;
  /** What the start-up check found (logged once). */
  tools?: ToolInfo[];
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

/** Every form a secret of this config could take in a log line or an error message. */
function secretsOf(config: AgentConfig): string[] {
  const raw = [config.apiKey ?? '', config.masterKey, config.masterKey.split(':').pop() ?? ''];
  for (const d of config.databases) raw.push(d.uri, ...uriSecrets(d.uri));
  const all = raw.filter((s) => s.length >= 4);
  // JSON.stringify escapes quotes and backslashes: mask the escaped spelling too.
  return [...new Set([...all, ...all.map((s) => JSON.stringify(s).slice(1, -1))])];
}

/** The server as shown in logs and the status file: no user info, no path. */
function displayServer(server: string): string {
  try {
    return new URL(server).origin;
  } catch {
    return '(invalid URL)';
  }
}

/** A short reason for a refused connection, and whether retrying soon could help. */
export function classifyConnectError(message: string): { auth: boolean; reset?: boolean; advice?: string } {
  if (/connection was reset from the dashboard/i.test(message)) return { auth: false, reset: true };
  if (/invalid api key/i.test(message))
    return {
      auth: true,
      advice:
        'The server does not accept this API key. Copy the current key from Settings → Security and run `coffer-agent init --server URL --api-key KEY` again.',
    };
  if (/suspended|banned/i.test(message))
    return { auth: true, advice: 'The Coffer account this agent belongs to is suspended.' };
  return { auth: false };
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  let config = await loadConfig(opts.configPath);
  if (!config.server || !config.apiKey) {
    throw new Error('this config has no server or API key');
  }
  const stateDir = stateDirFor(opts.configPath, config);
  let instanceId = await loadInstanceId(stateDir, config.instanceId);
  const server = config.server!;
  const apiKey = config.apiKey!;
  const heartbeatMs = positiveInt(opts.env.HEARTBEAT_INTERVAL_MS, DEFAULT_HEARTBEAT_MS);
  const authRetryMs = positiveInt(opts.env.COFFER_AGENT_AUTH_RETRY_MS, AUTH_RETRY_MS);
  const configPollMs = positiveInt(opts.env.COFFER_AGENT_CONFIG_POLL_MS, CONFIG_POLL_MS);

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
    },
    (e) => log.warn('could not write the status file', { err: e }),
  );

  let agentId: string | undefined;
  let stopping = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  /** lastError in the status file is a connection problem (cleared once connected again). */
  let connectionTrouble = false;
  const backoff = new Backoff();
  let resolveDone!: (o: DaemonOutcome) => void;
  const done = new Promise<DaemonOutcome>((r) => (resolveDone = r));

  const handshake = () => ({
    apiKey,
    instanceId,
    name: config.name,
    hostname: os.hostname(),
    platform: `${os.platform()}-${os.arch()}`,
    version: opts.version,
    databases: config.databases.map((d) => d.name),
  });

  const socket: Socket = io(`${new URL(server).origin}/agents`, {
    path: '/api/socket.io',
    transports: ['websocket'],
    forceNew: true,
    autoConnect: false,
    reconnection: true,
    reconnectionAttempts: Infinity,
    reconnectionDelay: 1000,
    reconnectionDelayMax: 30_000,
    randomizationFactor: 0.5,
    timeout: 20_000,
    auth: (cb) => cb(handshake()),
  });

  const access = (): ServerAccess => ({ server, apiKey, agentId: agentId ?? '' });

  const reporter: Reporter = {
    emit(event, payload) {
      // Progress is only worth sending live; a stale reading is not replayed after a reconnect.
      if (socket.connected) socket.emit(event, payload);
    },
    async report(event, payload) {
      const answer = (await socket.timeout(REPORT_TIMEOUT_MS).emitWithAck(event, payload)) as
        ReportAnswer | undefined;
      return answer && typeof answer === 'object' ? answer : { ok: false, error: 'no answer' };
    },
  };

  const updater = createUpdater({
    server,
    version: opts.version,
    stateDir,
    execPath: process.execPath,
    singleExecutable: isSingleExecutable(),
    supervised: opts.env.COFFER_AGENT_SUPERVISED === '1',
    log,
    report: async (outcome) => {
      if (!socket.connected) return false;
      const answer = (await socket.timeout(REPORT_TIMEOUT_MS).emitWithAck('agent:update', outcome)) as
        ReportAnswer | undefined;
      return answer?.ok === true;
    },
    restart: (reason) => void shutdown(reason, 'restart'),
  });

  const runner = new JobRunner({
    reporter,
    database: (label) => findDatabase(config, label),
    masterKey: () => masterKeyOf(config),
    openUpload: (backupId, fingerprint, onEnding) =>
      new UploadSink(access(), backupId, fingerprint, onEnding),
    download: (restoreId, file, o) => downloadRestore(access(), restoreId, file, o),
    backup: runBackup,
    restore: runRestore,
    makeTempDir: () => mkdtemp(path.join(os.tmpdir(), 'coffer-restore-')),
    removeDir: (dir) => rm(dir, { recursive: true, force: true }),
    log,
    onChange: () => status.update({ jobs: runner.list() }),
    onFailed: (job, error) => {
      connectionTrouble = false;
      status.update({ lastError: `${job.kind} of "${job.database}" failed: ${error}` });
    },
    scrub,
  });

  const sendHeartbeat = () => {
    if (!socket.connected) return;
    socket
      .timeout(REPORT_TIMEOUT_MS)
      .emitWithAck('heartbeat', {
        runningJobs: runner.runningIds(),
        databases: config.databases.map((d) => d.name),
      })
      .then(
        (answer: ReportAnswer | undefined) => {
          if (answer && answer.ok === false)
            log.warn('the server refused a heartbeat', { error: answer.error });
        },
        () => log.debug('heartbeat not acknowledged'),
      );
  };

  const stopHeartbeat = () => {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = undefined;
  };

  const scheduleReconnect = (delayMs: number) => {
    if (stopping || reconnectTimer) return;
    log.info('reconnecting later', { inSeconds: Math.round(delayMs / 100) / 10 });
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      if (!stopping && !socket.connected) socket.connect();
    }, delayMs);
  };

  socket.on('connect', () => {
    log.info('connected', { server: displayServer(server) });
    status.update({ connected: true, ...(connectionTrouble ? { lastError: undefined } : {}) });
    connectionTrouble = false;
  });

  socket.on('registered', (payload: { agentId?: unknown; databases?: unknown }) => {
    if (typeof payload?.agentId !== 'string') {
      log.warn('ignoring a malformed registered event');
      return;
    }
    agentId = payload.agentId;
    backoff.reset();
    const dbs = Array.isArray(payload.databases)
      ? (payload.databases as Array<{ name?: unknown; isActive?: unknown }>)
      : [];
    log.info('registered', {
      agentId,
      databases: dbs.map((d) => ({ name: String(d.name), isActive: Boolean(d.isActive) })),
    });
    const inactive = dbs
      .filter((d) => !d.isActive && config.databases.some((c) => c.name === d.name))
      .map((d) => String(d.name));
    if (inactive.length)
      log.warn('some databases are inactive on the server (plan limit); they cannot be backed up', {
        databases: inactive,
      });
    status.update({ agentId, connected: true });
    stopHeartbeat();
    heartbeat = setInterval(sendHeartbeat, heartbeatMs);
    sendHeartbeat();
    void updater.reportPending().catch((e: unknown) => log.warn('could not report the update', { err: e }));
  });

  socket.on('disconnect', (reason) => {
    stopHeartbeat();
    status.update({ connected: false });
    if (stopping) return;
    log.warn('disconnected', { reason });
    // The server closed the connection on purpose: socket.io does not come back by itself.
    if (reason === 'io server disconnect') scheduleReconnect(backoff.next());
  });

  socket.on('connect_error', (err: Error) => {
    if (stopping) return;
    const message = scrub(err.message || 'connection failed');
    const { auth, reset: wasReset, advice } = classifyConnectError(message);
    if (wasReset) {
      // Reset while this agent was away: its old identity is retired, so it registers as a new one.
      log.warn('the connection of this agent was reset from the dashboard; registering as a new agent');
      void renewInstanceId(stateDir).then(
        (id) => {
          instanceId = id;
          scheduleReconnect(0);
        },
        (e: unknown) => log.error('could not save a new instance id', { err: e }),
      );
      return;
    }
    connectionTrouble = true;
    status.update({ connected: false, lastError: `Cannot connect to ${displayServer(server)}: ${message}` });
    if (auth) {
      log.error('the server refused the connection', { error: message, advice });
    } else {
      log.warn('cannot connect', { server: displayServer(server), error: message });
    }
    // Refusals by the server (bad key, registration failure) are final for socket.io: retry ourselves.
    if (!socket.active) scheduleReconnect(auth ? authRetryMs : backoff.next());
  });

  const onCommand = (raw: unknown, ack?: (a: Ack) => void) => {
    const answer = (a: Ack) => {
      if (typeof ack === 'function') ack(a);
    };
    const parsed = parseCommand(raw);
    if ('error' in parsed) {
      log.warn('refused a command', { error: parsed.error });
      answer({ accepted: false, error: parsed.error });
      return;
    }
    const cmd: Command = parsed.command;
    if (stopping) {
      answer({ accepted: false, error: 'The agent is shutting down' });
      return;
    }
    log.info('command received', {
      commandId: cmd.commandId,
      kind: cmd.kind,
      ...(cmd.jobId ? { jobId: cmd.jobId } : {}),
      ...(cmd.databaseName ? { database: cmd.databaseName } : {}),
    });
    if (isJobCommand(cmd)) {
      const a: Ack = agentId
        ? runner.accept(cmd)
        : { accepted: false, error: 'The agent is not registered yet; try again in a moment' };
      if (!a.accepted) log.warn('refused a command', { kind: cmd.kind, jobId: cmd.jobId, error: a.error });
      answer(a);
      return;
    }
    answer({ accepted: true });
    switch (cmd.kind) {
      case 'update':
        log.info('update check requested by the server');
        void updater.run().catch((e: unknown) => log.error('the update failed', { err: e }));
        break;
      case 'restart':
        log.info('restart requested by the server');
        void shutdown('Agent restarted', 'restart');
        break;
      case 'reset':
        void reset();
        break;
    }
  };
  socket.on('command', onCommand);

  /** New instance id: the server sees a new agent (the old record was retired by the reset). */
  async function reset(): Promise<void> {
    log.info('connection reset requested by the server; registering as a new agent');
    await runner.stopAll('Agent connection reset');
    try {
      instanceId = await renewInstanceId(stateDir);
    } catch (e) {
      log.error('could not save the new instance id; keeping the old one', { err: e });
    }
    runner.reopen();
    agentId = undefined;
    status.update({ agentId: undefined });
    socket.disconnect();
    if (!stopping) socket.connect();
  }

  async function shutdown(reason: string, outcome: DaemonOutcome): Promise<void> {
    if (stopping) return;
    stopping = true;
    log.info(outcome === 'restart' ? 'restarting' : 'stopping', { reason });
    await runner.stopAll(reason);
    stopHeartbeat();
    clearInterval(sweeper);
    clearInterval(configWatch);
    if (reconnectTimer) clearTimeout(reconnectTimer);
    socket.close();
    status.stop();
    status.update({ connected: false, jobs: [] });
    await status.flush();
    resolveDone(outcome);
  }

  const sweep = () =>
    sweepToolConfigs().then(
      (n) =>
        n && log.info('removed tool config files left by an interrupted backup or restore', { count: n }),
      () => undefined,
    );
  void sweep();
  const sweeper = setInterval(() => void sweep(), 3_600_000);
  sweeper.unref();

  // `coffer-agent db add|remove` (often run as root beside a running service) only edits the
  // config: pick the change up and tell the server at once.
  let configStamp = (await stat(opts.configPath)).mtimeMs;
  const reloadConfig = async () => {
    const st = await stat(opts.configPath).catch(() => undefined);
    if (!st || st.mtimeMs === configStamp || stopping) return;
    configStamp = st.mtimeMs;
    try {
      const fresh = await loadConfig(opts.configPath);
      const names = (c: AgentConfig) => c.databases.map((d) => d.name).join('\n');
      const changed = names(fresh) !== names(config);
      if (fresh.server !== config.server || fresh.apiKey !== config.apiKey)
        log.warn('the server or API key changed in the config; restart the agent to use them');
      config = { ...fresh, server: config.server, apiKey: config.apiKey };
      if (changed) {
        log.info('databases changed in the config', { databases: config.databases.map((d) => d.name) });
        sendHeartbeat();
      }
    } catch (e) {
      log.warn('the config changed but cannot be used; keeping the previous one', {
        error: (e as Error).message,
      });
    }
  };
  const configWatch = setInterval(() => void reloadConfig(), configPollMs);
  configWatch.unref();

  status.start();
  status.update({ connected: false });
  log.info('starting', {
    version: opts.version,
    node: process.version,
    ...(opts.tools ? { tools: opts.tools.map((t) => `${t.path} (${t.version})`) } : {}),
    stateDir,
    server: displayServer(server),
    instanceId,
    databases: config.databases.map((d) => d.name),
  });
  if (config.databases.length === 0)
    log.warn('no databases configured; add one with `coffer-agent db add NAME --uri -`');
  socket.connect();

  return {
    done,
    stop: (reason = 'Agent stopped') => shutdown(reason, 'stopped'),
  };
}
