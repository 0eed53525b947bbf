import { z } from 'zod';
import { baseEnv, defaultGrpc, grpcAddress, loadConfig, port } from '@coffer/common';

/** The database setting, all the migrate step (migrate.ts) reads besides MONGODB_URI. */
export const notificationDbEnv = { NOTIFICATION_DB: z.string().min(1).default('coffer_notification') };

const schema = z.object({
  ...baseEnv,
  GRPC_LISTEN: z.string().default(defaultGrpc.notification),
  ...notificationDbEnv,
  /** Auth's gRPC server: the account address and name of a user named by an event. */
  AUTH_GRPC: grpcAddress(defaultGrpc.auth),
  SMTP_HOST: z.string().min(1).default('127.0.0.1'),
  SMTP_PORT: port(1025),
  /** true: TLS from the first byte (port 465). false: plain, upgraded with STARTTLS when offered. */
  SMTP_SECURE: z.stringbool().default(false),
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASS: z.string().min(1).optional(),
  MAIL_FROM: z.string().min(3).max(200).default('Coffer <no-reply@coffer.local>'),
  /** Base of every link in a mail (the web app's address). */
  PUBLIC_URL: z.url().default('http://127.0.0.1:8080'),
  /** Minimum time between two test notifications of one user (protects mailboxes from floods). */
  TEST_MAIL_COOLDOWN_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
});

export type NotificationConfig = z.infer<typeof schema>;
export const loadNotificationConfig = () => loadConfig('notification', schema);
