import { auth } from '@coffer/proto';
import {
  connectServiceBus,
  openServiceDatabase,
  startGrpcServer,
  type Logger,
  type ServiceContext,
  type StartedService,
} from '@coffer/common';
import { stripeSettings, twoFactorKey, type AuthConfig } from './config.js';
import { authDatabase } from './model.js';
import { mongoAuthStores } from './store/index.js';
import type { AuthStores } from './store/types.js';
import { AUTH_STREAMS, type AuthEvents } from './events.js';
import { accounts as accountsFactory } from './domain/accounts.js';
import { admin as adminFactory } from './domain/admin.js';
import { adminActor } from './domain/admin-actor.js';
import { billing as billingFactory, type BillingProvider } from './domain/billing.js';
import { stripeProvider } from './domain/billing-stripe.js';
import { passwordReset } from './domain/password-reset.js';
import { plans as plansFactory } from './domain/plans.js';
import { apiKeyVault } from './domain/secrets.js';
import { sessions as sessionsFactory } from './domain/sessions.js';
import { tokenIssuer, twoFactorTokens } from './domain/tokens.js';
import { twoFactor as twoFactorFactory } from './domain/two-factor.js';
import { twoFactorVault } from './domain/two-factor-vault.js';
import { views as viewsFactory } from './domain/views.js';
import { authHandlers } from './handlers.js';
import { notificationMail, type AuthMail } from './mail.js';

export type AuthSettings = Pick<
  AuthConfig,
  'API_KEY_PEPPER' | 'JWT_SECRET' | 'JWT_TTL_SECONDS' | 'PUBLIC_URL' | 'DEV_EXPOSE_RESET_TOKEN'
> &
  Partial<Pick<AuthConfig, 'TOTP_ENCRYPTION_KEY'>>;

/** The auth domain wired from its stores and event publisher; startAuth and the tests share it. */
export function buildAuth(deps: {
  stores: AuthStores;
  events: AuthEvents;
  /** Security mails, handed to notification by a call (a reset link never goes on NATS). */
  mail: AuthMail;
  config: AuthSettings;
  log: Logger;
  now?: () => Date;
  /** The payment provider and plan key → price id; absent when billing is not configured. */
  billing?: { provider: BillingProvider; prices: Record<string, string> };
}) {
  const { stores, events, mail, config, now, log } = deps;
  const vault = apiKeyVault(config.API_KEY_PEPPER);
  const plans = plansFactory({ store: stores.plans, users: stores.users, events });
  const issueToken = tokenIssuer(config.JWT_SECRET, config.JWT_TTL_SECONDS);
  const twoFactor = twoFactorFactory({
    store: stores.twoFactor,
    settings: stores.securitySettings,
    users: stores.users,
    vault: twoFactorVault(twoFactorKey(config)),
    tokens: twoFactorTokens(config.JWT_SECRET, now),
    events,
    now,
  });
  const accounts = accountsFactory({
    users: stores.users,
    plans,
    vault,
    issueToken,
    events,
    mail,
    log,
    secondFactor: twoFactor,
  });
  const reset = passwordReset({
    users: stores.users,
    tokens: stores.resetTokens,
    events,
    mail,
    log,
    publicUrl: config.PUBLIC_URL,
    now,
  });
  const billing = billingFactory({
    provider: deps.billing?.provider ?? null,
    prices: deps.billing?.prices ?? {},
    publicUrl: config.PUBLIC_URL,
    store: stores.billing,
    plans,
    users: stores.users,
    events,
    log,
    now,
  });
  const admin = adminFactory({
    users: stores.users,
    twoFactor: stores.twoFactor,
    resetTokens: stores.resetTokens,
    accounts,
    plans,
    billing,
    events,
    now,
  });
  const sessions = sessionsFactory({
    store: stores.endedSessions,
    maxTtlSeconds: config.JWT_TTL_SECONDS,
    now,
  });
  const views = viewsFactory(vault);
  const handlers = authHandlers({
    log: deps.log,
    accounts,
    sessions,
    plans,
    reset,
    admin,
    views,
    billing,
    adminActor: adminActor({ jwtSecret: config.JWT_SECRET, accounts, sessions }),
    twoFactor,
    issueToken,
    exposeResetToken: config.DEV_EXPOSE_RESET_TOKEN,
  });
  return { vault, plans, accounts, reset, admin, sessions, views, billing, twoFactor, handlers };
}

const CANCELLATION_SWEEP_MS = 10 * 60_000;

/** Connects to Mongo and NATS, seeds the plans and the first admin, then serves gRPC. */
export async function startAuth(
  config: AuthConfig,
  { log, identity }: ServiceContext,
): Promise<StartedService> {
  const { conn, models } = await openServiceDatabase(config, config.AUTH_DB, authDatabase, log);
  const events = await connectServiceBus(config, 'auth', log, [...AUTH_STREAMS]);
  const mail = notificationMail(config.NOTIFICATION_GRPC, identity);
  const stripe = stripeSettings(config);
  const built = buildAuth({
    stores: mongoAuthStores(models),
    events,
    mail,
    config,
    log,
    ...(stripe ? { billing: { provider: stripeProvider({ ...stripe, log }), prices: stripe.prices } } : {}),
  });
  log.info({ billing: stripe ? 'stripe' : 'not configured' }, 'billing');
  await built.plans.seed();
  if (config.COFFER_ADMIN_EMAIL && config.COFFER_ADMIN_PASSWORD) {
    await built.accounts.ensureAdmin(config.COFFER_ADMIN_EMAIL, config.COFFER_ADMIN_PASSWORD);
  }

  const grpc = await startGrpcServer(
    config.GRPC_LISTEN,
    [{ definition: auth.AuthServiceService, impl: built.handlers }],
    { identity, log },
  );
  // Deleted accounts whose subscription Stripe could not cancel at the time (every replica runs
  // it; a second cancel of the same subscription is a no-op).
  const sweep = setInterval(() => {
    built.billing
      .retryCancellations()
      .catch((err: unknown) =>
        log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'subscription cancellation sweep failed',
        ),
      );
  }, CANCELLATION_SWEEP_MS);
  sweep.unref();
  return {
    ready: () => conn.readyState === 1 && !events.nc.isClosed(),
    info: { grpcPort: grpc.port },
    steps: [
      { name: 'grpc health', stop: async () => grpc.setServing(false) },
      { name: 'cancellation sweep', stop: async () => clearInterval(sweep) },
      { name: 'grpc', stop: () => grpc.stop() },
      // Reset mails are handed off after the answer: let those under way finish first.
      { name: 'reset mails', stop: () => built.reset.settled() },
      { name: 'notification client', stop: async () => mail.close() },
      { name: 'nats', stop: () => events.close() },
      { name: 'mongo', stop: () => conn.close() },
    ],
  };
}
