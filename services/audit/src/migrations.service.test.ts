// Service test: the audit database's data migrations on a real FerretDB, as the migrate step runs them.
import { migrateDatabase } from '@coffer/common';
import { ferretDbPerCase } from '@coffer/common/testing';
import { auditDatabase } from './model';

const ferretDb = ferretDbPerCase('audit_migrate');

const indexNames = async (conn: ReturnType<typeof ferretDb.fresh>) =>
  (await conn.collection('audit_entries').listIndexes().toArray()).map((i) => String(i.name)).sort();

test('an upgraded audit database loses the {userId, action} index cursor paging replaced, once', async () => {
  const conn = ferretDb.fresh();
  // The database as the release before cursor paging left it.
  await conn.collection('audit_entries').createIndex({ userId: 1, action: 1 });
  const models = auditDatabase.models(conn);

  const first = await migrateDatabase(conn, models, auditDatabase.migrations!);
  expect(first.applied).toEqual(['0001-drop-user-action-index']);
  const names = await indexNames(conn);
  expect(names).not.toContain('userId_1_action_1');
  expect(names).toContain('userId_1_action_1_timestamp_-1');

  expect((await migrateDatabase(conn, models, auditDatabase.migrations!)).applied).toEqual([]);
});

test('a new audit database migrates without the old index ever existing', async () => {
  const conn = ferretDb.fresh();
  const result = await migrateDatabase(conn, auditDatabase.models(conn), auditDatabase.migrations!);
  expect(result.applied).toEqual(['0001-drop-user-action-index']);
  expect(await indexNames(conn)).not.toContain('userId_1_action_1');
});
