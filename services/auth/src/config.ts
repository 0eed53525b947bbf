import crypto from 'node:crypto';
import { z } from 'zod';
import { baseEnv, defaultGrpc, grpcAddress, loadConfig, secretSetting, weakSecrets } from '@coffer/common';

/** An optional setting in a given format; empty counts as unset (compose passes `${X:-}` as ''). */
const optionalMatching = (re: RegExp, message: string) =>
  z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(re, message).optional());
const stripePrice = () => optionalMatching(/^price_\w+$/, 'must be a Stripe price id (price_…)');

const STRIPE_KEYS = [
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_PRICE_STARTER',
  'STRIPE_PRICE_PRO',
  'STRIPE_PRICE_BUSINESS',
] as const;

/** The database setting, all the migrate step (migrate.ts) reads besides MONGODB_URI. */
export const authDbEnv = { AUTH_DB: z.string().min(1).default('coffer_auth') };

const schema = z
  .object({
    ...baseEnv,
    GRPC_LISTEN: z.string().default(defaultGrpc.auth),
    ...authDbEnv,
    /** Where reset and e-mail-changed mails are handed over (a call: secrets stay off NATS). */
    NOTIFICATION_GRPC: grpcAddress(defaultGrpc.notification),
    JWT_SECRET: secretSetting(),
    JWT_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .default(7 * 24 * 3600),
    /** Keys the API-key lookup hash and the encryption of the copy shown to its owner. */
    API_KEY_PEPPER: secretSetting(),
    /**
     * Seals the TOTP secrets of two-factor sign-in and keys the recovery codes' HMACs. Required in
     * production; a local run without it derives one from API_KEY_PEPPER (twoFactorKey).
     */
    TOTP_ENCRYPTION_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(32).optional()),
    PUBLIC_URL: z.url().default('http://127.0.0.1:8080'),
    COFFER_ADMIN_EMAIL: z.email().optional(),
    COFFER_ADMIN_PASSWORD: z.string().min(6).optional(),
    /** Development only: return the reset token in the forgot-password answer. */
    DEV_EXPOSE_RESET_TOKEN: z.stringbool().default(false),
    /** Stripe billing: all optional together; without them only free plans can be chosen. */
    STRIPE_SECRET_KEY: optionalMatching(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_…)'),
    STRIPE_WEBHOOK_SECRET: optionalMatching(/^whsec_\w+$/, 'must be a Stripe webhook secret (whsec_…)'),
    STRIPE_PRICE_STARTER: stripePrice(),
    STRIPE_PRICE_PRO: stripePrice(),
    STRIPE_PRICE_BUSINESS: stripePrice(),
    /** Tests only: a Stripe API stand-in (stripe-mock), e.g. http://127.0.0.1:12111. */
    STRIPE_API_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url().optional()),
  })
  .refine(
    (c) => STRIPE_KEYS.every((k) => c[k] === undefined) || STRIPE_KEYS.every((k) => c[k] !== undefined),
    {
      message:
        'Stripe billing needs all of STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_STARTER/PRO/BUSINESS, or none of them',
    },
  )
  .refine((c) => weakSecrets(c, ['JWT_SECRET', 'API_KEY_PEPPER']).length === 0, {
    message:
      'JWT_SECRET and API_KEY_PEPPER must be set in production to random values of at least 32 characters',
  })

  .refine(
    (c) =>
      c.NODE_ENV !== 'production' ||
      (c.TOTP_ENCRYPTION_KEY !== undefined && weakSecrets(c, ['TOTP_ENCRYPTION_KEY']).length === 0),
    {
      message:
        'TOTP_ENCRYPTION_KEY must be set in production to a random value of at least 32 characters (it seals the two-factor secrets)',
    },
  );

export type AuthConfig = z.infer<typeof schema>;

/**
 * The key of two-factor secrets: TOTP_ENCRYPTION_KEY, or for a local run one derived from
 * API_KEY_PEPPER with HKDF (a separate key in every other respect: no other secret is derived the
 * same way). Production refuses to start without TOTP_ENCRYPTION_KEY (the schema above).
 */
export const twoFactorKey = (c: Pick<AuthConfig, 'TOTP_ENCRYPTION_KEY' | 'API_KEY_PEPPER'>): string =>
  c.TOTP_ENCRYPTION_KEY ??
  Buffer.from(crypto.hkdfSync('sha256', c.API_KEY_PEPPER, 'coffer-2fa', 'totp-encryption-key', 32)).toString(
    'base64url',
  );
/** The Stripe settings when billing is configured, else null. */
export function stripeSettings(c: AuthConfig) {
  if (!c.STRIPE_SECRET_KEY || !c.STRIPE_WEBHOOK_SECRET) return null;
  const prices: Record<string, string> = {};
  if (c.STRIPE_PRICE_STARTER) prices.starter = c.STRIPE_PRICE_STARTER;
  if (c.STRIPE_PRICE_PRO) prices.pro = c.STRIPE_PRICE_PRO;
  if (c.STRIPE_PRICE_BUSINESS) prices.business = c.STRIPE_PRICE_BUSINESS;
  const api = c.STRIPE_API_URL ? new URL(c.STRIPE_API_URL) : undefined;
  return {
    secretKey: c.STRIPE_SECRET_KEY,
    webhookSecret: c.STRIPE_WEBHOOK_SECRET,
    prices,
    ...(api
      ? {
          api: {
            host: api.hostname,
            port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)),
            protocol: api.protocol === 'https:' ? ('https' as const) : ('http' as const),
          },
        }
      : {}),
  };
}

/** The schema's verdict on an environment, for tests (loadAuthConfig exits on an invalid one). */
export const checkAuthConfig = (env: Record<string, string | undefined>) => schema.safeParse(env);

export const loadAuthConfig = () => loadConfig('auth', schema);
