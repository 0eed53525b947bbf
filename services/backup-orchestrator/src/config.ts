import { z } from 'zod';
import { baseEnv, defaultGrpc, grpcAddress, loadConfig } from '@coffer/common';
import { FIRST_BACKUP_GRACE_MINUTES } from './domain/rules.js';

const ms = (fallback: number) => z.coerce.number().int().min(10).default(fallback);

/** The database setting, all the migrate step (migrate.ts) reads besides MONGODB_URI. */
export const orchestratorDbEnv = { ORCHESTRATOR_DB: z.string().min(1).default('coffer_orchestrator') };

const schema = z.object({
  ...baseEnv,
  GRPC_LISTEN: z.string().default(defaultGrpc.orchestrator),
  ...orchestratorDbEnv,
  AUTH_GRPC: grpcAddress(defaultGrpc.auth),
  STORAGE_GRPC: grpcAddress(defaultGrpc.storage),
  /** How often the scheduler looks for due backups (it only enqueues; a worker creates them). */
  SCHEDULER_TICK_MS: ms(30_000),
  /**
   * Seconds in one "hour" of the scheduler's slot math (slot = floor(now / frequency hours)).
   * 3600 in production; tests shrink it so slot boundaries pass in seconds.
   */
  SCHEDULER_SLOT_SECONDS: z.coerce.number().int().min(1).default(3600),
  /**
   * Minutes (of the slot hour above) a newly reported database waits for the user's own first
   * backup before the scheduler takes one (the manual trigger would otherwise hit the plan interval).
   */
  FIRST_BACKUP_GRACE_MINUTES: z.coerce.number().min(0).default(FIRST_BACKUP_GRACE_MINUTES),
  RETENTION_TICK_MS: ms(60_000),
  WATCHDOG_TICK_MS: ms(10_000),
  /** A command the agent never confirmed fails after this long. */
  COMMAND_TIMEOUT_MS: ms(60_000),
  /** An agent silent for this long is not 'active'; its running jobs fail. */
  HEARTBEAT_TIMEOUT_MS: ms(60_000),
  /** An agent whose socket closed has this long to reconnect before its running jobs fail. */
  AGENT_RECONNECT_GRACE_MS: ms(15_000),
  /** Safety net: no job stays in progress longer than this, even if the agent says it is running. */
  JOB_MAX_HOURS: z.coerce.number().min(1).default(24),
  /**
   * How long a requested turn-off of the retention lock waits before it takes effect (announced
   * by mail; the owner can cancel it meanwhile). 7 days; tests shrink it.
   */
  RETENTION_LOCK_OFF_DELAY_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(7 * 24 * 3600),
  /** Runs the scheduler, retention and watchdog timers (every replica may; they are replica-safe). */
  JOBS_ENABLED: z.stringbool().default(true),
});

export type OrchestratorConfig = z.infer<typeof schema>;
export const loadOrchestratorConfig = (env: NodeJS.ProcessEnv = process.env) =>
  loadConfig('backup-orchestrator', schema, env);
