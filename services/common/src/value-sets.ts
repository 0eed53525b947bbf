// The value sets that travel as proto enums (docs/engineering.md), mapped to the strings (or hours)
// the domains store and the REST API answers with. One table per set; the services' handlers and the
// gateway convert through these, so a member missing on either side fails here, not on the wire.
// Sets that @coffer/contracts names (command kinds, update statuses, frequencies) are checked
// against it at compile time.
import { z } from 'zod';
import {
  FREQUENCY_HOURS,
  FREQUENCY_NAMES,
  type CommandKind,
  type FrequencyName,
  type KbCategory,
  type RetentionMode,
  type UPDATE_STATUSES,
} from '@coffer/contracts';
import { auth, kb, orchestrator, schedule } from '@coffer/proto';
import { badInput } from './errors.js';

/**
 * A domain value set and its proto enum, both ways. Every enum member but *_UNSPECIFIED (and
 * ts-proto's UNRECOGNIZED) must be mapped: a member added to the .proto without a row here fails at load.
 */
function valueSet<const D extends string | number, E extends string>(
  protoEnum: Record<string, E>,
  pairs: readonly (readonly [D, E])[],
  /** The message a request carrying UNSPECIFIED or an unknown member is refused with. */
  refusal: string,
) {
  const toProto = new Map<D, E>(pairs);
  const fromProto = new Map<string, D>(pairs.map(([d, p]) => [p, d]));
  const unmapped = Object.values(protoEnum).filter(
    (p) => !fromProto.has(p) && !p.endsWith('_UNSPECIFIED') && p !== 'UNRECOGNIZED',
  );
  if (unmapped.length > 0) throw new Error(`No domain value for ${unmapped.join(', ')}`);
  const lookUp = (p: unknown) => (typeof p === 'string' ? fromProto.get(p) : undefined);
  return {
    values: pairs.map(([d]) => d),
    /** A domain value as its enum member; a value outside the set is a bug (INTERNAL). */
    toProto(value: D): E {
      const p = toProto.get(value);
      if (p === undefined) throw new Error(`${JSON.stringify(value)} has no proto value (${refusal})`);
      return p;
    },
    /** A member from a request: UNSPECIFIED or unknown is refused with BAD_INPUT (INVALID_ARGUMENT). */
    fromRequest(value: E): D {
      const d = lookUp(value);
      if (d === undefined) throw badInput(refusal);
      return d;
    },
    /** A member in another service's answer: UNSPECIFIED or unknown is that service's bug (INTERNAL). */
    fromAnswer(value: E): D {
      const d = lookUp(value);
      if (d === undefined) throw new Error(`Unexpected ${value} in an answer (${refusal})`);
      return d;
    },
    /** For a handler's `parseInput` schema: a member in, the domain value out, else the refusal. */
    schema: z.custom<E>((p) => lookUp(p) !== undefined, refusal).transform((p) => lookUp(p)!),
  };
}

const J = orchestrator.JobStatus;
export const jobStatus = valueSet(
  J,
  [
    ['pending', J.JOB_STATUS_PENDING],
    ['in-progress', J.JOB_STATUS_IN_PROGRESS],
    ['completed', J.JOB_STATUS_COMPLETED],
    ['failed', J.JOB_STATUS_FAILED],
  ],
  'Job status must be pending, in-progress, completed or failed',
);

const T = orchestrator.BackupType;
export const backupType = valueSet(
  T,
  [
    ['manual', T.BACKUP_TYPE_MANUAL],
    ['auto', T.BACKUP_TYPE_AUTO],
  ],
  'Backup type must be manual or auto',
);

const A = orchestrator.AgentAction;
export const agentAction = valueSet(
  A,
  [
    ['restart', A.AGENT_ACTION_RESTART],
    ['update', A.AGENT_ACTION_UPDATE],
    ['reset', A.AGENT_ACTION_RESET],
  ],
  'Action must be restart, update or reset',
);

const K = orchestrator.CommandKind;
const commandKinds = {
  backup: K.COMMAND_KIND_BACKUP,
  restore: K.COMMAND_KIND_RESTORE,
  restart: K.COMMAND_KIND_RESTART,
  update: K.COMMAND_KIND_UPDATE,
  reset: K.COMMAND_KIND_RESET,
  verify: K.COMMAND_KIND_VERIFY,
} as const satisfies Record<CommandKind, orchestrator.CommandKind>;
export const commandKind = valueSet(
  K,
  Object.entries(commandKinds) as [CommandKind, orchestrator.CommandKind][],
  'Unknown command kind',
);

const U = orchestrator.AgentUpdateStatus;
const updateStatuses = {
  updated: U.AGENT_UPDATE_STATUS_UPDATED,
  current: U.AGENT_UPDATE_STATUS_CURRENT,
  failed: U.AGENT_UPDATE_STATUS_FAILED,
} as const satisfies Record<(typeof UPDATE_STATUSES)[number], orchestrator.AgentUpdateStatus>;
export const agentUpdateStatus = valueSet(
  U,
  Object.entries(updateStatuses) as [(typeof UPDATE_STATUSES)[number], orchestrator.AgentUpdateStatus][],
  'Update status must be updated, current or failed',
);

export const role = valueSet(
  auth.Role,
  [
    ['user', auth.Role.ROLE_USER],
    ['admin', auth.Role.ROLE_ADMIN],
  ],
  "Role must be 'user' or 'admin'",
);

export const accountStatus = valueSet(
  auth.AccountStatus,
  [
    ['active', auth.AccountStatus.ACCOUNT_STATUS_ACTIVE],
    ['inactive', auth.AccountStatus.ACCOUNT_STATUS_INACTIVE],
  ],
  "Status must be 'active' or 'inactive'",
);

/** Frequencies by their hours, as the settings and plans store them (contracts FREQUENCY_HOURS). */
const F = schedule.BackupFrequency;
const frequencies = {
  hourly: F.BACKUP_FREQUENCY_HOURLY,
  daily: F.BACKUP_FREQUENCY_DAILY,
  weekly: F.BACKUP_FREQUENCY_WEEKLY,
  monthly: F.BACKUP_FREQUENCY_MONTHLY,
} as const satisfies Record<FrequencyName, schedule.BackupFrequency>;
export const backupFrequency = valueSet<number, schedule.BackupFrequency>(
  F,
  FREQUENCY_NAMES.map((n) => [FREQUENCY_HOURS[n], frequencies[n]] as const),
  'Backup frequency must be 1, 24, 168 or 720 hours (hourly, daily, weekly or monthly)',
);

const M = orchestrator.RetentionMode;
export const retentionMode = valueSet(
  M,
  [
    ['days', M.RETENTION_MODE_DAYS],
    ['gfs', M.RETENTION_MODE_GFS],
  ] as const satisfies readonly (readonly [RetentionMode, orchestrator.RetentionMode])[],
  'Retention mode must be days or gfs',
);

/** Knowledge-base categories (contracts KB_CATEGORIES), each with its enum member. */
const C = kb.ArticleCategory;
const articleCategories = {
  'getting-started': C.ARTICLE_CATEGORY_GETTING_STARTED,
  setup: C.ARTICLE_CATEGORY_SETUP,
  usage: C.ARTICLE_CATEGORY_USAGE,
  troubleshooting: C.ARTICLE_CATEGORY_TROUBLESHOOTING,
  faq: C.ARTICLE_CATEGORY_FAQ,
  security: C.ARTICLE_CATEGORY_SECURITY,
} as const satisfies Record<KbCategory, kb.ArticleCategory>;
export const articleCategory = valueSet(
  C,
  Object.entries(articleCategories) as [KbCategory, kb.ArticleCategory][],
  `Category must be one of ${Object.keys(articleCategories).join(', ')}`,
);
