// What a 'Check for Updates' came to, as the agent card says it (issue 21, walk 10): the agent's
// report reaches the open card over the realtime connection once the server has recorded it.
import type { AgentUpdateEvent } from '@coffer/contracts';

/** 'checking' from the click until the agent's answer arrives. */
export type UpdateCheck = AgentUpdateEvent | 'checking';

export function updateResultText(check: UpdateCheck): {
  status: 'info' | 'success' | 'error';
  message: string;
} {
  if (check === 'checking')
    return { status: 'info', message: 'Checking for updates… the agent’s answer appears here.' };
  if (check.status === 'current')
    return { status: 'success', message: `Up to date: version ${check.toVersion} is the newest.` };
  if (check.status === 'updated')
    return { status: 'success', message: `Updated to version ${check.toVersion}.` };
  const reason = check.error?.replace(/\.$/, '') || 'the agent gave no reason';
  // No version when the command reached no agent: nothing was tried.
  const kept = check.fromVersion ? ` Version ${check.fromVersion} keeps running.` : '';
  return { status: 'error', message: `Update failed: ${reason}.${kept}` };
}
