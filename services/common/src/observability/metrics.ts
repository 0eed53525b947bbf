import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { buildInfo } from './build-info.js';

/**
 * The process's own metrics (HTTP, gRPC, jobs, agents, NATS lag), created on first use so a
 * service only exports what it does; the ops server serves them next to the service's registry.
 * Each service is its own process, so "once per process" is "once per service".
 */
export const metricsRegistry = new Registry();

function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

const registers = [metricsRegistry];

// Seconds, from a fast in-memory answer to a slow upload stream.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
// Backups and restores run for seconds to hours.
const JOB_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 43200];

/**
 * Every metric name this module can export, for the dashboard check: keep in step with the
 * metrics below.
 */
export const METRIC_NAMES = [
  'http_request_duration_seconds',
  'grpc_server_handling_seconds',
  'grpc_client_handling_seconds',
  'coffer_backup_duration_seconds',
  'coffer_restore_duration_seconds',
  'coffer_backup_bytes_total',
  'coffer_jobs_total',
  'coffer_agents_connected',
  'nats_consumer_pending_messages',
  'nats_consumer_ack_pending_messages',
  'nats_consumer_redelivered_messages',
  'coffer_build_info',
  'coffer_scheduler_skips_total',
  'coffer_backup_overdue_databases',
  'coffer_backup_scheduled_databases',
  'coffer_nats_dead_letters',
] as const;

/** `coffer_build_info{version,commit} 1` on every service: which build each process runs. */
export const buildInfoMetric = once(() => {
  const gauge = new Gauge({
    name: 'coffer_build_info',
    help: 'The build this process runs: release version and commit (always 1)',
    labelNames: ['version', 'commit'] as const,
    registers,
  });
  gauge.set({ ...buildInfo() }, 1);
  return gauge;
});

/** Gateway HTTP requests; `route` is the declared path template, never the raw URL. */
export const httpRequestDuration = once(
  () =>
    new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
);

// `grpc_*` label names: every series already has `service` (the process), set by the ops server.
const GRPC_LABELS = ['grpc_service', 'grpc_method', 'grpc_code'] as const;

export const grpcServerHandling = once(
  () =>
    new Histogram({
      name: 'grpc_server_handling_seconds',
      help: 'gRPC calls this service answered, by service, method and status code',
      labelNames: GRPC_LABELS,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
);

export const grpcClientHandling = once(
  () =>
    new Histogram({
      name: 'grpc_client_handling_seconds',
      help: 'gRPC calls this service made, by service, method and status code',
      labelNames: GRPC_LABELS,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
);

/** Splits a gRPC path (`/coffer.auth.AuthService/Login`) into its service and method labels. */
export function grpcPathLabels(path: string): { grpc_service: string; grpc_method: string } {
  const m = /^\/([^/]+)\/([^/]+)$/.exec(path);
  return m ? { grpc_service: m[1]!, grpc_method: m[2]! } : { grpc_service: 'unknown', grpc_method: path };
}

/** The status code's name (OK, NOT_FOUND, …) as the `grpc_code` label. */
export const grpcCodeName = (code: number | undefined): string =>
  (code === undefined ? undefined : (GrpcStatus as unknown as Record<number, string>)[code]) ?? 'UNKNOWN';

const jobMetrics = once(() => ({
  backupDuration: new Histogram({
    name: 'coffer_backup_duration_seconds',
    help: 'How long finished backups ran, from the agent starting them to their end, by outcome',
    labelNames: ['outcome'] as const,
    buckets: JOB_BUCKETS,
    registers,
  }),
  restoreDuration: new Histogram({
    name: 'coffer_restore_duration_seconds',
    help: 'How long finished restores ran, from the agent starting them to their end, by outcome',
    labelNames: ['outcome'] as const,
    buckets: JOB_BUCKETS,
    registers,
  }),
  backupBytes: new Counter({
    name: 'coffer_backup_bytes_total',
    help: 'Bytes of completed backups (encrypted, as stored)',
    registers,
  }),
  jobs: new Counter({
    name: 'coffer_jobs_total',
    help: 'Finished backups, restores and verifications by kind and outcome',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  }),
}));

const JOB_KINDS = ['backup', 'restore'] as const;
const JOB_OUTCOMES = ['completed', 'failed'] as const;

/**
 * Exports every job series at 0 before the first job ends: after a deploy that breaks backups,
 * "no completed backup in a day" must see a flat 0, not no data.
 */
export function zeroJobMetrics(): void {
  const m = jobMetrics();
  for (const outcome of JOB_OUTCOMES) {
    for (const kind of JOB_KINDS) m.jobs.inc({ kind, outcome }, 0);
    m.backupDuration.zero({ outcome });
    m.restoreDuration.zero({ outcome });
  }
}

/** Why the scheduler did not create a due backup (the label of `coffer_scheduler_skips_total`). */
export const SCHEDULER_SKIP_REASONS = ['no_agent', 'inactive', 'over_limit', 'suspended'] as const;
export type SchedulerSkipReason = (typeof SCHEDULER_SKIP_REASONS)[number];

const schedulerSkips = once(() => {
  const counter = new Counter({
    name: 'coffer_scheduler_skips_total',
    help: 'Due scheduled backups not created, by reason: no_agent (none connected), inactive (over the plan database limit), over_limit (the plan interval), suspended (account)',
    labelNames: ['reason'] as const,
    registers,
  });
  for (const reason of SCHEDULER_SKIP_REASONS) counter.inc({ reason }, 0);
  return counter;
});

/** Exports every skip reason at 0 from the start (call when the scheduler is built). */
export const zeroSchedulerSkips = (): void => void schedulerSkips();

export function recordSchedulerSkip(reason: SchedulerSkipReason): void {
  schedulerSkips().inc({ reason });
}

/** A finished backup or restore as the orchestrator stored it. */
export interface FinishedJob {
  status: string;
  createdAt?: Date;
  startedAt?: Date | null;
  completedAt?: Date | null;
  size?: number | null;
}

/** Counts a job that just reached its end (call once per transition, not per repeated report). */
export function recordJobOutcome(kind: 'backup' | 'restore' | 'verify', job: FinishedJob): void {
  const m = jobMetrics();
  const outcome = job.status === 'completed' ? 'completed' : 'failed';
  m.jobs.inc({ kind, outcome });
  // Verifications (verified backups) are counted by outcome only: a verified backup is
  // kind="verify",outcome="completed", one that differs or could not run outcome="failed".
  if (kind === 'verify') return;
  const from = job.startedAt ?? job.createdAt;
  if (job.completedAt && from) {
    const seconds = Math.max(0, job.completedAt.getTime() - from.getTime()) / 1000;
    (kind === 'backup' ? m.backupDuration : m.restoreDuration).observe({ outcome }, seconds);
  }
  if (kind === 'backup' && outcome === 'completed' && job.size && job.size > 0) m.backupBytes.inc(job.size);
}

/** Agents connected to this gateway process (sum over gateways for the fleet). */
export const agentsConnected = once(
  () =>
    new Gauge({
      name: 'coffer_agents_connected',
      help: 'Agents connected to this gateway process',
      registers,
    }),
);

/** What the lag gauges read: a JetStream consumer's info (the manager's `consumers.info`). */
export type ConsumerInfoReader = (
  stream: string,
  consumer: string,
) => Promise<{ num_pending: number; num_ack_pending: number; num_redelivered?: number }>;

const watchedConsumers = new Map<string, { stream: string; consumer: string; read: ConsumerInfoReader }>();
const SCRAPE_READ_TIMEOUT_MS = 2_000;

/** The read's answer, or undefined when it fails or outlasts a scrape (no sample beats a stale one). */
async function withinScrape<T>(
  read: () => Promise<T>,
  timeoutMs = SCRAPE_READ_TIMEOUT_MS,
): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('read timed out')), timeoutMs);
  });
  try {
    return await Promise.race([read(), timeout]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One read per scrape feeds several gauges: a scrape starts every collect() in one synchronous
 * pass, so the later gauges join the read the first one started instead of reading again.
 */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () =>
    (inFlight ??= read().finally(() => {
      inFlight = undefined;
    }));
}

const currentSample = sharedRead(async () => {
  const samples = await Promise.all(
    [...watchedConsumers.values()].map(async ({ stream, consumer, read }) => {
      // NATS away: no sample; alert on absent() if that matters.
      const info = await withinScrape(() => read(stream, consumer));
      return (
        info && {
          labels: { stream, consumer },
          pending: info.num_pending,
          ackPending: info.num_ack_pending,
          redelivered: info.num_redelivered ?? 0,
        }
      );
    }),
  );
  return samples.filter((s) => s !== undefined);
});

const consumerLag = once(() => ({
  pending: new Gauge({
    name: 'nats_consumer_pending_messages',
    help: 'Messages in the stream the JetStream consumer has not been delivered yet (its lag)',
    labelNames: ['stream', 'consumer'] as const,
    registers,
    async collect() {
      const samples = await currentSample();
      this.reset();
      for (const s of samples) this.set(s.labels, s.pending);
    },
  }),
  ackPending: new Gauge({
    name: 'nats_consumer_ack_pending_messages',
    help: 'Messages delivered to the JetStream consumer and not yet acknowledged',
    labelNames: ['stream', 'consumer'] as const,
    registers,
    async collect() {
      const samples = await currentSample();
      this.reset();
      for (const s of samples) this.set(s.labels, s.ackPending);
    },
  }),
  redelivered: new Gauge({
    name: 'nats_consumer_redelivered_messages',
    help: 'Messages the JetStream consumer has delivered more than once and not yet acknowledged',
    labelNames: ['stream', 'consumer'] as const,
    registers,
    async collect() {
      const samples = await currentSample();
      this.reset();
      for (const s of samples) this.set(s.labels, s.redelivered);
    },
  }),
}));

/** Reports the consumer's lag at every scrape until the returned function is called. */
export function watchConsumerLag(stream: string, consumer: string, read: ConsumerInfoReader): () => void {
  consumerLag();
  const key = `${stream}/${consumer}`;
  const entry = { stream, consumer, read };
  watchedConsumers.set(key, entry);
  return () => {
    if (watchedConsumers.get(key) === entry) watchedConsumers.delete(key);
  };
}

/** Databases that should be backed up on a schedule, and those of them overdue, for one plan. */
export interface OverdueSample {
  plan: string;
  scheduled: number;
  overdue: number;
}

let overdueReader: (() => Promise<OverdueSample[] | undefined>) | undefined;
// Counting reads every scheduled database: more time than a lag read, still inside a scrape.
const OVERDUE_READ_TIMEOUT_MS = 8_000;

const overdueGauges = once(() => {
  const read = sharedRead(async () => (overdueReader ? await overdueReader() : undefined));
  const gauge = (name: string, help: string, pick: (s: OverdueSample) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['plan'] as const,
      registers,
      async collect() {
        const samples = await read();
        this.reset();
        for (const s of samples ?? []) this.set({ plan: s.plan }, pick(s));
      },
    });
  return [
    gauge(
      'coffer_backup_overdue_databases',
      'Scheduled databases whose last completed backup is older than twice their interval, by plan',
      (s) => s.overdue,
    ),
    gauge(
      'coffer_backup_scheduled_databases',
      'Databases backed up on a schedule, by plan',
      (s) => s.scheduled,
    ),
  ];
});

/** Reports overdue and scheduled databases at every scrape from `read` (the orchestrator's count). */
export function watchOverdueBackups(read: () => Promise<OverdueSample[]>): void {
  overdueGauges();
  overdueReader = () => withinScrape(read, OVERDUE_READ_TIMEOUT_MS);
}

/** Events in the dead-letter stream for one consumer and reason (`max_deliveries`, `malformed`). */
export interface DeadLetterCount {
  stream: string;
  consumer: string;
  reason: string;
  count: number;
}

const deadLetterReaders = new Set<() => Promise<DeadLetterCount[]>>();

const deadLetterGauge = once(
  () =>
    new Gauge({
      name: 'coffer_nats_dead_letters',
      help: 'Events a consumer gave up on, kept in the DEADLETTER stream until purged, by consumer and reason',
      labelNames: ['stream', 'consumer', 'reason'] as const,
      registers,
      async collect() {
        const counts = await Promise.all([...deadLetterReaders].map((read) => withinScrape(read)));
        this.reset();
        for (const c of counts.flat()) {
          if (c) this.set({ stream: c.stream, consumer: c.consumer, reason: c.reason }, c.count);
        }
      },
    }),
);

/** Reports the dead letters `read` counts at every scrape until the returned function is called. */
export function watchDeadLetters(read: () => Promise<DeadLetterCount[]>): () => void {
  deadLetterGauge();
  deadLetterReaders.add(read);
  return () => void deadLetterReaders.delete(read);
}
