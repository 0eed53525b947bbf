import { z } from 'zod';
import { baseEnv, defaultGrpc, loadConfig } from '@coffer/common';

const DEV_SECRET = 'coffer-local-development-secret-change-me';

const schema = z
  .object({
    ...baseEnv,
    GRPC_LISTEN: z.string().default(defaultGrpc.auth),
    AUTH_DB: z.string().min(1).default('coffer_auth'),
    JWT_SECRET: z.string().min(16).default(DEV_SECRET),
    JWT_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .default(7 * 24 * 3600),
    /** Keys the API-key lookup hash and the encryption of the copy shown to its owner. */
    API_KEY_PEPPER: z.string().min(16).default(DEV_SECRET),
    PUBLIC_URL: z.url().default('http://127.0.0.1:8080'),
    COFFER_ADMIN_EMAIL: z.email().optional(),
    COFFER_ADMIN_PASSWORD: z.string().min(6).optional(),
    /** Development only: return the reset token in the forgot-password answer. */
    DEV_EXPOSE_RESET_TOKEN: z.stringbool().default(false),
  })
  .refine(
    (c) => c.NODE_ENV !== 'production' || (c.JWT_SECRET !== DEV_SECRET && c.API_KEY_PEPPER !== DEV_SECRET),
    {
      message: 'JWT_SECRET and API_KEY_PEPPER must be set in production',
    },
  );

export type AuthConfig = z.infer<typeof schema>;
export const loadAuthConfig = () => loadConfig('auth', schema);
