import { AppError } from '@coffer/common';
import { connectRefusal, type ConnectRefusalCode } from '@coffer/contracts';

/**
 * The refusal an agent receives when its connection cannot be registered: a code it acts on
 * (docs/agent-protocol.md) and a message for its log. Internal details never reach the agent.
 */
export function refusalFor(err: unknown): Error {
  if (!(err instanceof AppError)) return connectRefusal('REGISTRATION_FAILED', 'Agent registration failed');
  return connectRefusal(codeOf(err), err.message);
}

function codeOf(err: AppError): ConnectRefusalCode {
  if (err.code === 'ACCOUNT_BANNED') return 'ACCOUNT_SUSPENDED';
  if (err.code === 'ACCOUNT_INACTIVE') return 'ACCOUNT_INACTIVE';
  if (err.code === 'AGENT_RESET') return 'AGENT_RESET';
  // Raised for an unknown, revoked or malformed key (by the gateway or by auth).
  if (err.kind === 'UNAUTHENTICATED') return 'INVALID_API_KEY';
  return 'REGISTRATION_FAILED';
}
