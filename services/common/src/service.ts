import { Registry } from 'prom-client';
import { createLogger, type Logger } from './logger.js';
import { startOpsServer, type ReadinessCheck } from './ops-server.js';
import { onShutdown } from './shutdown.js';
import { isServiceName } from './grpc/callers.js';
import {
  identityWarnings,
  serviceIdentity,
  type ServiceIdentity,
  type ServiceKeyConfig,
} from './grpc/service-keys.js';

/** One started part of a service (gRPC server, consumers, a timer, a connection) and how to stop it. */
export interface StopStep {
  name: string;
  stop(): Promise<unknown>;
}

/** What a service's start function hands to runService once everything listens. */
export interface StartedService {
  /** `/readyz` answers 200 while this holds. */
  ready: ReadinessCheck;
  /** Shutdown order: stop taking work, finish in-flight work, close connections. */
  steps: StopStep[];
  /** Logged with "<service> ready", e.g. the ports it listens on. */
  info?: Record<string, unknown>;
}

/**
 * What runService gives the start function: the service's logger, the ops port's metrics registry
 * and its gRPC identity (the key it signs its calls with, the keys it checks callers' with).
 */
export interface ServiceContext {
  log: Logger;
  registry: Registry;
  identity: ServiceIdentity;
}

/** The settings runService itself reads (every service has them through `baseEnv`). */
export interface ServiceBaseConfig extends ServiceKeyConfig {
  LOG_LEVEL: string;
  OPS_PORT: number;
  OPS_HOST: string;
  SHUTDOWN_TIMEOUT_SECONDS?: number;
}

export type ServiceStart<C> = (config: C, ctx: ServiceContext) => Promise<StartedService>;

/** Runs the steps in order; a failing step is logged and the later ones still run (tests use this too). */
export async function stopInOrder(steps: StopStep[], log?: Pick<Logger, 'warn'>): Promise<void> {
  for (const step of steps) {
    await step.stop().catch((err: unknown) => log?.warn({ err, step: step.name }, 'shutdown step failed'));
  }
}

/**
 * A service process: starts it, then the ops port (/livez, /readyz, /metrics) last so probes only
 * pass once everything listens, and stops it in order on SIGTERM/SIGINT with the ops port closed
 * last. A start that fails logs why and exits 1.
 */
export function runService<C extends ServiceBaseConfig>(
  name: string,
  config: C,
  start: ServiceStart<C>,
): Promise<void> {
  const log = createLogger(name, config.LOG_LEVEL);
  const registry = new Registry();
  return (async () => {
    if (!isServiceName(name)) throw new Error(`${name} is not a Coffer service name`);
    const identity = serviceIdentity(name, config);
    // Production refuses to start without the keys (loadConfig); elsewhere, say what will fail.
    for (const warning of identityWarnings(identity)) log.warn(warning);
    const service = await start(config, { log, registry, identity });
    const ops = await startOpsServer({
      service: name,
      port: config.OPS_PORT,
      host: config.OPS_HOST,
      ready: service.ready,
      registry,
    });
    log.info({ ...service.info, opsPort: ops.port }, `${name} ready`);
    const steps: StopStep[] = [...service.steps, { name: 'ops server', stop: () => ops.close() }];
    onShutdown(log, [() => stopInOrder(steps, log)], (config.SHUTDOWN_TIMEOUT_SECONDS ?? 15) * 1000);
  })().catch((err: unknown) => {
    log.fatal({ err }, `${name} failed to start`);
    process.exit(1);
  });
}
