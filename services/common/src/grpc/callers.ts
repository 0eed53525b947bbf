/** Every Coffer process that calls or serves gRPC; a caller token names one of them. */
export const SERVICE_NAMES = [
  'gateway',
  'auth',
  'notification',
  'audit',
  'backup-orchestrator',
  'storage',
  'kb',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * Who may call whom (docs/architecture.md, "Service identity"): the call graph and nothing more.
 * A service that is not listed for a callee gets PERMISSION_DENIED from it, even with a valid
 * token. The gateway calls everything on behalf of users; the others only what they need.
 */
export const ALLOWED_CALLERS: Readonly<Record<ServiceName, readonly ServiceName[]>> = {
  gateway: [],
  // Plans and account states for the orchestrator's jobs, contacts for notification's mails.
  auth: ['gateway', 'backup-orchestrator', 'notification'],
  // Reset and e-mail-changed mails from auth (a reset link never goes on NATS).
  notification: ['gateway', 'auth'],
  audit: ['gateway'],
  'backup-orchestrator': ['gateway'],
  // Blob sizes and deletions for the orchestrator's retention and cleanup.
  storage: ['gateway', 'backup-orchestrator'],
  kb: ['gateway'],
};

/** The services that call others, so need a private key to sign their calls. */
export const CALLING_SERVICES: readonly ServiceName[] = SERVICE_NAMES.filter((name) =>
  Object.values(ALLOWED_CALLERS).some((callers) => callers.includes(name)),
);

export const isServiceName = (name: string): name is ServiceName =>
  (SERVICE_NAMES as readonly string[]).includes(name);
