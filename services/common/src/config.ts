import { z } from 'zod';
import { serviceKeyEnv, serviceKeyProblems, type ServiceKeyConfig } from './grpc/service-keys.js';

/**
 * Parses the environment once with a schema and fails fast with a readable message.
 * Every service calls this from its own config.ts; defaults are the local-run values.
 */
export function loadConfig<S extends z.ZodType>(service: string, schema: S, env = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    console.error(`[${service}] invalid configuration:\n${lines.join('\n')}`);
    process.exit(78); // EX_CONFIG
  }
  const keyProblems = serviceKeyProblems(service, parsed.data as ServiceKeyConfig);
  if (keyProblems.length) {
    console.error(`[${service}] invalid configuration:\n${keyProblems.map((p) => `  ${p}`).join('\n')}`);
    process.exit(78);
  }
  return parsed.data;
}

/** A TCP port number from the environment. */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** Settings every service shares: where its servers are and how it logs. */
export const baseEnv = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  /** This service's NATS user and password (one user per service; see docs/operations.md). */
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().optional(),
  /** Or a `.creds` file (decentralised JWT auth) ... */
  NATS_CREDS: z.string().min(1).optional(),
  /** ... or an nkey user's seed. */
  NATS_NKEY_SEED: z.string().min(1).optional(),
  /** JetStream replicas of each stream (3 in a NATS cluster); a start never lowers an existing one. */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  MONGODB_URI: z.string().min(1).default('mongodb://127.0.0.1:27017'),
  /** Production: how long a start waits for the migrate step (docs/operations.md, "Upgrades"). */
  MIGRATE_WAIT_SECONDS: z.coerce.number().int().min(0).max(3600).default(300),
  OPS_PORT: port(0),
  /** How long a graceful stop may take before the process exits anyway. */
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
  /** Where /livez, /readyz and /metrics listen; 0.0.0.0 in containers so probes can reach them. */
  OPS_HOST: z.string().default('127.0.0.1'),
  /**
   * This service's gRPC identity (docs/architecture.md, "Service identity"): its Ed25519 private
   * key (PKCS#8 PEM or its base64 body on one line), or the file holding it, and the public keys
   * of the services that call (`gateway=<base64>,auth=<base64>,...`). Required in production.
   */
  SERVICE_PRIVATE_KEY: serviceKeyEnv.SERVICE_PRIVATE_KEY,
  SERVICE_PRIVATE_KEY_FILE: serviceKeyEnv.SERVICE_PRIVATE_KEY_FILE,
  SERVICE_PUBLIC_KEYS: serviceKeyEnv.SERVICE_PUBLIC_KEYS,
};

/** The secret the local run and the tests use; refused in production. */
export const DEVELOPMENT_SECRET = 'coffer-local-development-secret-change-me';

/**
 * A secret setting (JWT_SECRET, API_KEY_PEPPER): the development default locally; in production a
 * real value is required — the default, a 'change-me' placeholder or anything under 32 characters
 * would let anyone who read the docs forge tokens.
 */
export const secretSetting = () => z.string().min(16).default(DEVELOPMENT_SECRET);

/** The names of secret settings that are not fit for production, for a refine() on the schema. */
export function weakSecrets(
  config: { NODE_ENV: string } & Record<string, unknown>,
  names: string[],
): string[] {
  if (config.NODE_ENV !== 'production') return [];
  return names.filter((n) => {
    const v = String(config[n] ?? '');
    return v === DEVELOPMENT_SECRET || /change-?me/i.test(v) || v.length < 32;
  });
}

/** Address of another service's gRPC server, e.g. AUTH_GRPC=127.0.0.1:50051. */
export const grpcAddress = (fallback: string) =>
  z
    .string()
    .regex(/^[\w.-]+:\d+$/, 'expected host:port')
    .default(fallback);

/** Local default gRPC addresses of every service, so a plain local start needs no configuration. */
export const defaultGrpc = {
  auth: '127.0.0.1:50051',
  notification: '127.0.0.1:50052',
  audit: '127.0.0.1:50053',
  orchestrator: '127.0.0.1:50054',
  storage: '127.0.0.1:50055',
  kb: '127.0.0.1:50056',
} as const;
