// How an agent's status reads (product §2, §3): active green 'Online', inactive yellow 'Inactive',
// anything else red 'Offline'.
import type { Agent } from '../../api/generated';

export function agentDotColor(status: Agent['status']): string {
  if (status === 'active') return 'green.500';
  if (status === 'inactive') return 'yellow.500';
  return 'red.500';
}

export function agentStatusLabel(status: Agent['status']): string {
  if (status === 'active') return 'Online';
  if (status === 'inactive') return 'Inactive';
  return 'Offline';
}
