import { z } from 'zod';
import { baseEnv, defaultGrpc, grpcAddress, loadConfig, secretSetting, weakSecrets } from '@coffer/common';

const schema = z
  .object({
    ...baseEnv,
    GRPC_LISTEN: z.string().default(defaultGrpc.auth),
    AUTH_DB: z.string().min(1).default('coffer_auth'),
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
    PUBLIC_URL: z.url().default('http://127.0.0.1:8080'),
    COFFER_ADMIN_EMAIL: z.email().optional(),
    COFFER_ADMIN_PASSWORD: z.string().min(6).optional(),
    /** Development only: return the reset token in the forgot-password answer. */
    DEV_EXPOSE_RESET_TOKEN: z.stringbool().default(false),
  })
  .refine((c) => weakSecrets(c, ['JWT_SECRET', 'API_KEY_PEPPER']).length === 0, {
    message:
      'JWT_SECRET and API_KEY_PEPPER must be set in production to random values of at least 32 characters',
  });

export type AuthConfig = z.infer<typeof schema>;
export const loadAuthConfig = () => loadConfig('auth', schema);
