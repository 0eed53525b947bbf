// What the open app reads again when the server says one of the user's agents changed (issue 21,
// walk 5): a database added with `coffer-agent db add` reaches the Trigger Backup selector, and an
// agent that connects or disconnects reaches System Status, without a reload or the 30 s poll.
import { api } from '../api/cache';
import { onRealtime } from './socket';

type Dispatch = (action: ReturnType<typeof api.util.invalidateTags>) => unknown;

/** Registered once for the app's lifetime (the handlers outlive sockets and sign-ins). */
export function followAgents(dispatch: Dispatch): void {
  onRealtime('agentStatus', () => dispatch(api.util.invalidateTags(['SystemStatus', 'Databases'])));
  // An update changes the agent's version; every outcome is a new audit entry.
  onRealtime('agentUpdate', () => dispatch(api.util.invalidateTags(['SystemStatus', 'AuditLogs'])));
}
