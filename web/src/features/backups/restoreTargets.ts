// Where a backup can be restored (issue 20, restore anywhere): each database label each agent of
// the account reports, marked restorable when the agent holds the key the backup was made with
// (the fingerprints agree; the server never sees the key). Pure, so it is unit-tested.
import type { Agent, Backup } from '../../api/generated';

export interface RestoreTarget {
  /** Stable id for the select ('agentId:label'). */
  value: string;
  agentId: string;
  agentName: string;
  databaseName: string;
  /** The backup's own database on the agent that made it: the spec's restore. */
  isSource: boolean;
  /** False: the agent is not active, or holds another key; `reason` says which. */
  available: boolean;
  reason?: string;
}

export const NO_KEY_REASON = 'does not hold the key this backup was made with';
export const OFFLINE_REASON = 'is not connected';

/** The commands that bring the backup's key to another agent's host, and where each runs. */
export const KEY_IMPORT_STEPS = [
  {
    where: 'On the server whose agent made the backup:',
    command: 'coffer-agent key export --out coffer.key',
  },
  {
    where: 'On the target server (its agent reports the new key within seconds):',
    command: 'coffer-agent key import coffer.key --force',
  },
];

/** Every target, the backup's own database first, then by agent and database name. */
export function restoreTargets(
  backup: Pick<Backup, 'databaseName' | 'agentId' | 'keyFingerprint'>,
  agents: ReadonlyArray<Pick<Agent, 'id' | 'name' | 'status' | 'databases' | 'keyFingerprint'>>,
): RestoreTarget[] {
  const targets: RestoreTarget[] = [];
  for (const a of agents) {
    const holdsKey = !backup.keyFingerprint || a.keyFingerprint === backup.keyFingerprint;
    for (const db of a.databases ?? []) {
      const isSource = db === backup.databaseName && (a.id === backup.agentId || !backup.agentId);
      const reason = a.status !== 'active' ? OFFLINE_REASON : holdsKey ? undefined : NO_KEY_REASON;
      targets.push({
        value: `${a.id}:${db}`,
        agentId: a.id,
        agentName: a.name,
        databaseName: db,
        isSource,
        available: reason === undefined,
        ...(reason ? { reason } : {}),
      });
    }
  }
  return targets.sort(
    (x, y) =>
      Number(y.isSource) - Number(x.isSource) ||
      x.agentName.localeCompare(y.agentName) ||
      x.databaseName.localeCompare(y.databaseName),
  );
}

/** The label of a target in the choice. */
export function targetLabel(t: RestoreTarget): string {
  const base = `${t.databaseName} on ${t.agentName}`;
  if (t.isSource) return `${base} (the backup's own database)`;
  return t.reason ? `${base} (${t.reason})` : base;
}

/** The fields the restore request adds for a target and a choice of collections (none: the spec's). */
export function restoreRequestFields(
  backup: Pick<Backup, 'databaseName'>,
  target: RestoreTarget | undefined,
  chosen: readonly string[] | undefined,
  all: readonly string[],
): { targetDatabaseName?: string; targetAgentId?: string; collections?: string[] } {
  const some = chosen && chosen.length < all.length ? { collections: [...chosen] } : {};
  if (!target || target.isSource) return some;
  return {
    ...(target.databaseName !== backup.databaseName ? { targetDatabaseName: target.databaseName } : {}),
    targetAgentId: target.agentId,
    ...some,
  };
}
