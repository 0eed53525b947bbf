/**
 * Every domain event Coffer speaks, in one typed map: publishers, consumers (audit, notification,
 * gateway) and tests all use these names and payloads. Subjects follow <domain>.<entity>.<verb>;
 * each domain has one JetStream stream.
 */
export interface EventMap {
  'auth.user.registered': { userId: string; email: string; name: string };
  'auth.user.password_changed': { userId: string };
  'auth.user.email_changed': { userId: string; email: string };
  'auth.user.api_key_regenerated': { userId: string };
  'auth.user.plan_changed': { userId: string; planId: string; planName: string };
  'auth.user.ban_changed': { userId: string; isBanned: boolean; banReason: string | null; actorId: string };
  'auth.user.deleted': { userId: string; actorId: string };
  /** Carries the one-hour reset link to the notification service; the stream keeps it only briefly. */
  'auth.user.reset_requested': { userId: string; email: string; name: string; resetUrl: string };
}

export type EventSubject = keyof EventMap;

export interface EventEnvelope<S extends EventSubject = EventSubject> {
  /** Unique per event; also the JetStream message id, so a republish is dropped as a duplicate. */
  id: string;
  subject: S;
  occurredAt: string;
  data: EventMap[S];
}

/** One JetStream stream per domain. */
export const STREAMS = {
  AUTH: { subjects: ['auth.>'], maxAgeHours: 24 * 7 },
} as const satisfies Record<string, { subjects: readonly string[]; maxAgeHours: number }>;

export type StreamName = keyof typeof STREAMS;
