// The gateway's `registered` message: the agent's id, and which of its databases the user's plan
// allows (the others cannot be backed up, which the log says).
import type { RegisteredMessage } from '@coffer/contracts';
import type { Logger } from './log.js';

/** The message read defensively (it comes over the network): undefined when it has no agent id. */
export function readRegistration(payload: unknown): RegisteredMessage | undefined {
  const p = payload as { agentId?: unknown; databases?: unknown } | null | undefined;
  if (typeof p?.agentId !== 'string') return undefined;
  const dbs = Array.isArray(p.databases)
    ? (p.databases as Array<{ name?: unknown; isActive?: unknown }>)
    : [];
  return {
    agentId: p.agentId,
    databases: dbs.map((d) => ({ name: String(d.name), isActive: Boolean(d.isActive) })),
  };
}

/** The `registered` listener: logs what the server said, then hands the agent id on. */
export function registrationListener(deps: {
  log: Logger;
  /** The labels in the config now. */
  configured: () => readonly string[];
  registered: (agentId: string) => void;
}): (payload: unknown) => void {
  const { log } = deps;
  return (payload) => {
    const reg = readRegistration(payload);
    if (!reg) {
      log.warn('ignoring a malformed registered event');
      return;
    }
    log.info('registered', { agentId: reg.agentId, databases: reg.databases });
    const configured = deps.configured();
    const inactive = reg.databases
      .filter((d) => !d.isActive && configured.includes(d.name))
      .map((d) => d.name);
    if (inactive.length)
      log.warn('some databases are inactive on the server (plan limit); they cannot be backed up', {
        databases: inactive,
      });
    deps.registered(reg.agentId);
  };
}
