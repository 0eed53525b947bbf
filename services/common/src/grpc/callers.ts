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

/** What a caller may call: every method, or these (their names in the .proto, e.g. `Stat`). */
export type CallerAccess = '*' | readonly string[];

/**
 * Who may call whom, and what (docs/architecture.md, "Service identity"): the call graph and
 * nothing more. A caller not listed for a callee, or calling a method it is not listed for, gets
 * PERMISSION_DENIED, even with a valid token. The gateway calls everything on behalf of users; the
 * others only the methods they use, so a compromised one cannot read an API key or act as admin.
 */
export const ALLOWED_CALLERS: Readonly<
  Record<ServiceName, Readonly<Partial<Record<ServiceName, CallerAccess>>>>
> = {
  gateway: {},
  auth: {
    gateway: '*',
    // Plans and account states for the orchestrator's jobs, an address for notification's mails;
    // VerifyAdmin for the orchestrator's admin actions and kb's article writes, which act only for
    // the admin whose session token the gateway passed on.
    'backup-orchestrator': ['GetUserPlan', 'GetAccountState', 'VerifyAdmin'],
    notification: ['GetAccountState'],
    kb: ['VerifyAdmin'],
  },
  notification: {
    gateway: '*',
    // Reset and e-mail-changed mails from auth (a reset link never goes on NATS).
    auth: ['SendPasswordReset', 'SendAccountEmailChanged'],
  },
  audit: { gateway: '*' },
  'backup-orchestrator': { gateway: '*' },
  // Deletions for the orchestrator's retention and cleanup (a completion's size is Put's answer).
  storage: { gateway: '*', 'backup-orchestrator': ['Delete'] },
  kb: { gateway: '*' },
};

/** The services that may call `callee` at all. */
export const callersOf = (callee: ServiceName) => Object.keys(ALLOWED_CALLERS[callee]) as ServiceName[];

/** The services that call others, so need a private key to sign their calls. */
export const CALLING_SERVICES: readonly ServiceName[] = SERVICE_NAMES.filter((name) =>
  SERVICE_NAMES.some((callee) => callersOf(callee).includes(name)),
);

export const isServiceName = (name: string): name is ServiceName =>
  (SERVICE_NAMES as readonly string[]).includes(name);
