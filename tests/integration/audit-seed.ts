import { ObjectId, type MongoClient } from 'mongodb';

const T0 = Date.parse('2026-01-01T00:00:00Z');

/**
 * `count` audit entries as the audit service writes them, straight into its database: details
 * value `entry N` for N from `fromMinute`, a minute apart, every third one sharing its minute with
 * the one before (ties on time); every other one a PLAN_CHANGED, the rest SETTINGS_UPDATED.
 * Answers their ids, oldest first.
 */
export async function seedAuditEntries(
  mongo: MongoClient,
  userId: string,
  count: number,
  fromMinute = 0,
): Promise<string[]> {
  const docs = Array.from({ length: count }, (_, i) => ({
    _id: new ObjectId(),
    userId,
    eventId: `seeded-${userId}-${fromMinute}-${i}`,
    action: i % 2 ? 'PLAN_CHANGED' : 'SETTINGS_UPDATED',
    entity: 'User',
    entityId: userId,
    actor: 'User',
    details: { value: `entry ${fromMinute + i}` },
    timestamp: new Date(T0 + (fromMinute + i - (i % 3 === 2 ? 1 : 0)) * 60_000),
  }));
  await mongo.db('coffer_audit').collection('audit_entries').insertMany(docs);
  return docs.map((d) => d._id.toHexString());
}
