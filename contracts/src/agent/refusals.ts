// Why the gateway refused an agent's connection. Socket.IO hands the agent the refusal as a
// `connect_error` whose `data` is ConnectRefusal; the agent acts on the code (its message is for
// people and may change), e.g. registering again after AGENT_RESET.

export const CONNECT_REFUSAL_CODES = [
  /** The handshake `auth` does not fit the contract (a bug or a very old agent). */
  'BAD_HANDSHAKE',
  /** The API key is not (or no longer) a user's key. */
  'INVALID_API_KEY',
  /** The key's account is suspended (banned). */
  'ACCOUNT_SUSPENDED',
  /** The key's account was set inactive by an administrator. */
  'ACCOUNT_INACTIVE',
  /** This instance was retired by 'Reset Connection' while away: register with a new instance id. */
  'AGENT_RESET',
  /** Registration failed otherwise (a service unavailable, a refused field); retrying may help. */
  'REGISTRATION_FAILED',
] as const;
export type ConnectRefusalCode = (typeof CONNECT_REFUSAL_CODES)[number];

/** The `data` of the Error a refusing namespace middleware passes to `next`. */
export interface ConnectRefusal {
  code: ConnectRefusalCode;
}

/** The gateway side: an Error Socket.IO sends to the agent as a refusal with this code. */
export function connectRefusal(code: ConnectRefusalCode, message: string): Error & { data: ConnectRefusal } {
  return Object.assign(new Error(message), { data: { code } });
}

/** The agent side: the code of a `connect_error`, or undefined (a transport error, an old gateway). */
export function refusalCodeOf(err: unknown): ConnectRefusalCode | undefined {
  const code = (err as { data?: { code?: unknown } } | null | undefined)?.data?.code;
  return (CONNECT_REFUSAL_CODES as readonly unknown[]).includes(code)
    ? (code as ConnectRefusalCode)
    : undefined;
}
