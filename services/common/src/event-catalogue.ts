import type { EventSubject, StreamName } from './events.js';
import type { ServiceName } from './grpc/callers.js';

// Who publishes and who consumes each persisted event: the AsyncAPI document's producers and
// consumers (asyncapi.ts). The durable consumers listed here are checked against the ones the
// running services create (tests/integration/nats/dead-letters.test.ts).

/** The service that publishes a subject. */
export function producerOf(subject: EventSubject): ServiceName {
  if (subject.startsWith('settings.notification')) return 'notification';
  const domain = subject.split('.')[0]!;
  switch (domain) {
    case 'auth':
      return 'auth';
    case 'storage':
      return 'storage';
    case 'kb':
      return 'kb';
    default:
      // backup, restore, agent and the backup settings: the orchestrator owns them.
      return 'backup-orchestrator';
  }
}

export interface ConsumerEntry {
  service: ServiceName;
  stream: StreamName;
  durable: string;
  subjects: readonly EventSubject[];
}

const AUDITED_AUTH: EventSubject[] = [
  'auth.user.password_changed',
  'auth.user.email_changed',
  'auth.user.api_key_regenerated',
  'auth.user.plan_changed',
  'auth.user.ban_changed',
  'auth.user.role_changed',
  'auth.user.status_changed',
  'auth.user.deleted',
  'auth.user.two_factor_enabled',
  'auth.user.two_factor_disabled',
  'auth.user.recovery_code_used',
  'auth.user.recovery_codes_regenerated',
  'auth.security.admin_two_factor_changed',
];

/** What ends an agent's socket or its owner's cached state (the gateway's `gateway-agent-keys`). */
export const AGENT_ACCESS_SUBJECTS = [
  'auth.user.api_key_regenerated',
  'auth.user.ban_changed',
  'auth.user.status_changed',
  'auth.user.deleted',
  'auth.user.password_changed',
] as const satisfies readonly EventSubject[];

/** Every durable consumer of the services, with the subjects it filters on. */
export const EVENT_CONSUMERS: readonly ConsumerEntry[] = [
  { service: 'audit', stream: 'AUTH', durable: 'audit', subjects: AUDITED_AUTH },
  {
    service: 'audit',
    stream: 'BACKUP',
    durable: 'audit',
    subjects: [
      'backup.backup.created',
      'backup.backup.completed',
      'backup.backup.failed',
      'backup.backup.deleted',
      'backup.verification.completed',
      'backup.verification.failed',
    ],
  },
  {
    service: 'audit',
    stream: 'RESTORE',
    durable: 'audit',
    subjects: [
      'restore.restore.requested',
      'restore.restore.initiated',
      'restore.restore.completed',
      'restore.restore.failed',
    ],
  },
  {
    service: 'audit',
    stream: 'AGENT',
    durable: 'audit',
    subjects: [
      'agent.agent.registered',
      'agent.agent.disconnected',
      'agent.agent.updated',
      'agent.agent.update_failed',
      'agent.agent.up_to_date',
      'agent.agent.action_requested',
      'agent.agent.removed',
    ],
  },
  {
    service: 'audit',
    stream: 'SETTINGS',
    durable: 'audit',
    subjects: [
      'settings.backup.updated',
      'settings.notifications.updated',
      'settings.retention_lock.updated',
      'settings.database.updated',
      'settings.verification.updated',
      'settings.notification_email.requested',
      'settings.notification_email.changed',
    ],
  },
  { service: 'audit', stream: 'STORAGE', durable: 'audit', subjects: ['storage.limit.exceeded'] },
  {
    service: 'audit',
    stream: 'KB',
    durable: 'audit',
    subjects: [
      'kb.article.created',
      'kb.article.updated',
      'kb.article.deleted',
      'kb.article.published',
      'kb.article.unpublished',
    ],
  },
  {
    service: 'notification',
    stream: 'AUTH',
    durable: 'notification',
    subjects: ['auth.user.deleted', 'auth.billing.plan_lapsed'],
  },
  {
    service: 'notification',
    stream: 'BACKUP',
    durable: 'notification',
    subjects: ['backup.backup.completed', 'backup.backup.failed', 'backup.verification.failed'],
  },
  {
    service: 'notification',
    stream: 'AGENT',
    durable: 'notification',
    subjects: ['agent.agent.disconnected'],
  },
  {
    service: 'notification',
    stream: 'SETTINGS',
    durable: 'notification',
    subjects: ['settings.retention_lock.updated'],
  },
  { service: 'storage', stream: 'AUTH', durable: 'storage', subjects: ['auth.user.deleted'] },
  {
    service: 'backup-orchestrator',
    stream: 'AUTH',
    durable: 'orchestrator',
    subjects: ['auth.user.deleted'],
  },
  {
    service: 'backup-orchestrator',
    stream: 'AUTH',
    durable: 'orchestrator-plans',
    subjects: ['auth.user.plan_changed'],
  },
  {
    service: 'backup-orchestrator',
    stream: 'BACKUP',
    durable: 'orchestrator-scheduler',
    subjects: ['backup.schedule.due'],
  },
  { service: 'gateway', stream: 'AGENT', durable: 'gateway-commands', subjects: ['agent.command.requested'] },
  {
    service: 'gateway',
    stream: 'AUTH',
    durable: 'gateway-agent-keys',
    subjects: AGENT_ACCESS_SUBJECTS,
  },
  {
    service: 'gateway',
    stream: 'BACKUP',
    durable: 'gateway-fanout',
    subjects: ['backup.backup.started', 'backup.backup.completed', 'backup.backup.failed'],
  },
  {
    service: 'gateway',
    stream: 'RESTORE',
    durable: 'gateway-fanout',
    subjects: ['restore.restore.initiated', 'restore.restore.completed', 'restore.restore.failed'],
  },
];
