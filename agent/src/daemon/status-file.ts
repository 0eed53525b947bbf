// Keeps the status file (config.ts statusPathFor; read by `coffer-agent status`) current: rewritten on
// every state change, and at least every STATUS_HEARTBEAT_MS so a hung daemon shows as stale.
// Writes are serialised and coalesced; nothing secret is ever put in the file.
import { STATUS_HEARTBEAT_MS, writeStatus, type AgentStatus } from '../status.js';
import type { JobInfo } from './jobs.js';

export interface DaemonState {
  connected: boolean;
  agentId?: string;
  jobs: JobInfo[];
  lastError?: string;
}

export class StatusFile {
  private state: DaemonState = { connected: false, jobs: [] };
  private writing: Promise<void> | undefined;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string,
    private readonly base: {
      pid: number;
      version: string;
      startedAt: string;
      server?: string;
      tools?: string[];
    },
    private readonly onError: (e: unknown) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Starts the periodic rewrite. */
  start(intervalMs = STATUS_HEARTBEAT_MS): void {
    this.timer = setInterval(() => this.update({}), intervalMs);
    this.timer.unref();
  }

  /** Merges `patch` into the state and schedules a write. */
  update(patch: Partial<DaemonState>): void {
    this.state = { ...this.state, ...patch };
    this.dirty = true;
    if (!this.writing) this.writing = this.drain();
  }

  /** Resolves once everything set so far is on disk. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** What the file holds for the current state (exported for tests). */
  snapshot(): AgentStatus {
    const { connected, agentId, jobs, lastError } = this.state;
    const first = jobs[0];
    return {
      ...this.base,
      updatedAt: this.now().toISOString(),
      connected,
      ...(agentId ? { agentId } : {}),
      ...(first
        ? {
            activity: {
              kind: first.kind,
              database: first.database,
              id: first.id,
              startedAt: first.startedAt,
              ...(first.progress ? { progress: first.progress } : {}),
            },
          }
        : {}),
      jobs,
      ...(lastError ? { lastError } : {}),
    };
  }

  private async drain(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        try {
          await writeStatus(this.file, this.snapshot());
        } catch (e) {
          this.onError(e);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }
}

/** The connection as the status file shows it; see connectionStatus. */
export interface ConnectionStatus {
  connected(): void;
  disconnected(): void;
  /** The connection failed or was refused: `lastError` says why. */
  failed(lastError: string): void;
  /** A job failed: its reason replaces a connection problem as the last error. */
  jobFailed(lastError: string): void;
}

/**
 * `lastError` holds the latest problem, a connection's or a job's. A connection problem is cleared
 * once connected again; a job's failure stays until something else goes wrong.
 */
export function connectionStatus(status: Pick<StatusFile, 'update'>): ConnectionStatus {
  let connectionTrouble = false;
  return {
    connected() {
      status.update({ connected: true, ...(connectionTrouble ? { lastError: undefined } : {}) });
      connectionTrouble = false;
    },
    disconnected: () => status.update({ connected: false }),
    failed(lastError) {
      connectionTrouble = true;
      status.update({ connected: false, lastError });
    },
    jobFailed(lastError) {
      connectionTrouble = false;
      status.update({ lastError });
    },
  };
}
