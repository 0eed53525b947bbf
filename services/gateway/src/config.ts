import { z } from 'zod';
import {
  baseEnv,
  defaultGrpc,
  grpcAddress,
  loadConfig,
  port,
  secretSetting,
  weakSecrets,
} from '@coffer/common';

const schema = z
  .object({
    ...baseEnv,
    PORT: port(8080),
    HOST: z.string().default('127.0.0.1'),
    REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
    JWT_SECRET: secretSetting(),
    AUTH_GRPC: grpcAddress(defaultGrpc.auth),
    NOTIFICATION_GRPC: grpcAddress(defaultGrpc.notification),
    AUDIT_GRPC: grpcAddress(defaultGrpc.audit),
    ORCHESTRATOR_GRPC: grpcAddress(defaultGrpc.orchestrator),
    STORAGE_GRPC: grpcAddress(defaultGrpc.storage),
    KB_GRPC: grpcAddress(defaultGrpc.kb),
    /** The built web app (web/dist); served on the same origin as /api when present. */
    WEB_DIST: z.string().optional(),
    /** The agent downloads (agent binaries, installers, SHA256SUMS), served under /downloads. */
    AGENT_DOWNLOADS_DIR: z.string().optional(),
    /** Shown on the public contact page (GET /api/config): the operator's support address. */
    SUPPORT_EMAIL: z.email('SUPPORT_EMAIL must be an e-mail address').default('support@coffer.example.com'),
    /** Shown on the public contact page (GET /api/config): an invite link to the community chat. */
    COMMUNITY_CHAT_URL: z
      .url({ protocol: /^https?$/, error: 'COMMUNITY_CHAT_URL must be an http(s) URL' })
      .default('https://chat.coffer.example.com/invite'),
    /**
     * Express 'trust proxy': which hops may set X-Forwarded-For: a number of hops ('1' behind one
     * ingress), or addresses/subnets/names ('loopback,uniquelocal').
     */
    TRUST_PROXY: z.string().default('false'),
    /** From a connection's first byte to the end of the request headers (slow-header clients). */
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
    /** From a request's start to the end of its body, for every route but the agents' data plane. */
    HTTP_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    /** An idle kept-alive connection between two requests (below the load balancer's own idle limit). */
    HTTP_KEEPALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
    /** An agent upload or download with no byte either way for this long is ended. */
    AGENT_DATA_IDLE_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(5 * 60_000),
    /**
     * How long an agent's handshake may wait for its turn (AGENT_HANDSHAKE_CONCURRENCY*). The agent
     * keeps waiting on its open connection as long as the gateway does; after a gateway restart
     * thousands queue here, and one refused after this long comes back with backoff.
     */
    AGENT_HANDSHAKE_WAIT_MS: z.coerce.number().int().min(1000).max(300_000).default(120_000),
    /**
     * How long a registration may take once its turn came; the orchestrator abandons one still
     * running then.
     */
    AGENT_HANDSHAKE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(60_000).default(15_000),
    /**
     * Handshakes that may wait for their turn on one gateway, all keys together; more are refused
     * at once (the agents retry with backoff). Well above the agents one gateway serves.
     */
    AGENT_HANDSHAKE_MAX_WAITING: z.coerce.number().int().min(1).default(20_000),
    /** Handshakes one gateway works on at once, all keys together (the rest wait their turn). */
    AGENT_HANDSHAKE_CONCURRENCY: z.coerce.number().int().min(1).default(32),
    /** Handshakes of one API key one gateway works on at once (the rest wait their turn). */
    AGENT_HANDSHAKE_CONCURRENCY_PER_KEY: z.coerce.number().int().min(1).default(2),
    /** Handshakes from one client address one gateway works on at once (the rest wait their turn). */
    AGENT_HANDSHAKE_CONCURRENCY_PER_ADDRESS: z.coerce.number().int().min(1).default(4),
    /** New agent handshakes per API key per minute, all gateways together. */
    AGENT_HANDSHAKES_PER_KEY_PER_MINUTE: z.coerce.number().int().min(1).default(120),
    /** New agent handshakes per client address per minute, all gateways together. */
    AGENT_HANDSHAKES_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(1).default(60),
    /** How long a user's account state (ban, role) is cached before asking auth again. */
    ACCOUNT_STATE_CACHE_MS: z.coerce.number().int().min(0).default(3000),
    RATE_LOGIN_PER_IP: z.coerce.number().int().min(1).default(30),
    /** Sign-in attempts for one e-mail from one client address per window. */
    RATE_LOGIN_PER_EMAIL: z.coerce.number().int().min(1).default(10),
    /** Sign-in attempts for one e-mail from all addresses together per window (distributed guessing). */
    RATE_LOGIN_PER_EMAIL_ALL: z.coerce.number().int().min(1).default(100),
    RATE_FORGOT_PER_IP: z.coerce.number().int().min(1).default(10),
    RATE_FORGOT_PER_EMAIL: z.coerce.number().int().min(1).default(5),
    /** Current-password checks (password or e-mail change) per user per window. */
    RATE_PASSWORD_PER_USER: z.coerce.number().int().min(1).default(10),
    /** Sign-ups per client address per window. */
    /**
     * Two-factor code attempts (sign-in's second step, step-up, enrolment) per account, and sign-in
     * second steps per IP, per window: six digits must not be guessable by trying.
     */
    RATE_2FA_PER_USER: z.coerce.number().int().min(1).default(10),
    RATE_2FA_PER_IP: z.coerce.number().int().min(1).default(30),
    RATE_REGISTER_PER_IP: z.coerce.number().int().min(1).default(10),
    RATE_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .default(15 * 60),
  })
  .refine((c) => weakSecrets(c, ['JWT_SECRET']).length === 0, {
    message: 'JWT_SECRET must be set in production to the random value auth uses (at least 32 characters)',
  });

export type GatewayConfig = z.infer<typeof schema>;
export const loadGatewayConfig = () => loadConfig('gateway', schema);
