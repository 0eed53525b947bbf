// What the daemon does when the gateway refuses its connection, decided by the refusal's code
// (contracts: ConnectRefusalCode), never by its wording.
import type { ConnectRefusalCode } from '@coffer/contracts';

export type RefusalHandling =
  /** The server retired this agent's identity while it was away: register as a new instance. */
  | { action: 'renew-identity' }
  /** Only the user can fix it: say how, and retry slowly (the key may be fixed meanwhile). */
  | { action: 'retry-slowly'; advice: string }
  /** Passing trouble (or a transport error, with no code): retry with backoff. */
  | { action: 'retry' };

/** `server`: the server's address as the agent shows it, for the command the advice names. */
export function refusalHandling(code: ConnectRefusalCode | undefined, server = 'URL'): RefusalHandling {
  switch (code) {
    case 'AGENT_RESET':
      return { action: 'renew-identity' };
    case 'INVALID_API_KEY':
      return {
        action: 'retry-slowly',
        advice:
          'The server does not accept this API key (it was regenerated, or is wrong). Copy the current key from ' +
          `Settings → Security and run \`coffer-agent init --server ${server}\`, which asks for it ` +
          '(or re-run the installer); the running agent picks the new key up by itself.',
      };
    case 'ACCOUNT_SUSPENDED':
      return { action: 'retry-slowly', advice: 'The Coffer account this agent belongs to is suspended.' };
    case 'ACCOUNT_INACTIVE':
      return {
        action: 'retry-slowly',
        advice: 'The Coffer account this agent belongs to is inactive; an administrator can reactivate it.',
      };
    case 'BAD_HANDSHAKE':
    case 'REGISTRATION_FAILED':
    case undefined:
      return { action: 'retry' };
  }
}
