// Restore anywhere (issue 20), through the whole stack and real agents: a backup restored into
// another database label of the same agent (the source untouched), only chosen collections, onto a
// second agent that imported the same key with `coffer-agent key import`, and refused by an agent
// holding another key before it downloads anything. The API refuses targets that are not the user's.
import { api, eventually, newUser, type TestUser } from '../helpers';
import { mutate, seedDatabase, snapshot } from '../../../agent/src/testing/database-fixtures';
import {
  agentCli,
  backupCompleted,
  customerDbForFile,
  setupAgent,
  uniqueName,
  upgradeToPro,
  waitRestore,
  type Agent,
} from './harness';

jest.setTimeout(240_000);

const SHOP = 'shop';
const SHOP_DB = uniqueName('shop_');
const COPY = 'shop-copy';
const COPY_DB = uniqueName('copy_');
/** The "new server after a disaster": another agent, its own database. */
const DR = 'shop-dr';
const DR_DB = uniqueName('dr_');
/** An agent that never got the key. */
const STRAY = 'stray';
const STRAY_DB = uniqueName('stray_');

const customer = customerDbForFile();
let owner: TestUser;
let main: Agent;
let backup: any;

beforeAll(async () => {
  owner = await newUser('anywhere');
  await seedDatabase(customer().client, SHOP_DB, { events: 30 });
  await upgradeToPro(owner);
  main = await setupAgent(owner, [
    { label: SHOP, uri: customer().uri(SHOP_DB) },
    { label: COPY, uri: customer().uri(COPY_DB), check: false },
  ]);
  backup = await backupCompleted(owner.token, SHOP, main);
});

async function restore(body: Record<string, unknown>, agent: Agent): Promise<any> {
  const res = await api('POST', `/api/backups/${backup._id}/restore`, {
    token: owner.token,
    body: { databaseName: SHOP, ...body } as any,
  });
  if (res.status !== 202) throw new Error(`restore: ${res.status} ${JSON.stringify(res.body)}`);
  return waitRestore(owner.token, (res.body as any).restore._id, 90_000, agent);
}

const docsOf = (s: Awaited<ReturnType<typeof snapshot>>, c: string) => s.documents[c];

it("records the backup's collections, which the restore dialog offers", async () => {
  const listed = await eventually(async () => {
    const res = await api('GET', `/api/backups/${backup._id}`, { token: owner.token });
    const collections = (res.body as any).collections as Array<{ name: string; documents: number }>;
    if (!collections) throw new Error('collections not recorded yet');
    return collections;
  }, 20_000);
  expect(Object.fromEntries(listed.map((c) => [c.name, c.documents]))).toEqual({
    customers: 40,
    empty: 0,
    'with space': 2,
    'dots.in.name': 2,
    ünïcode: 1,
    events: 30,
  });
  expect((backup as any).keyFingerprint).toMatch(/^[0-9a-f]{32}$/);
});

it('restores into another database label of the same agent, leaving the source untouched', async () => {
  const source = await snapshot(customer().client, SHOP_DB);
  const r = await restore({ targetDatabaseName: COPY }, main);
  expect(r).toMatchObject({ status: 'completed', databaseName: COPY, sourceDatabaseName: SHOP });
  expect(r).toMatchObject({ documentsRestored: 75, documentsFailed: 0 });
  expect(r.sourceAgent).toBe(main.name);
  expect(r.targetAgent).toBe(main.name);
  const copied = await snapshot(customer().client, COPY_DB);
  expect(copied.documents).toEqual(source.documents);
  expect(copied.indexes).toEqual(source.indexes);
  expect(await snapshot(customer().client, SHOP_DB)).toEqual(source);
});

it('restores only the chosen collections, leaving the others as they are', async () => {
  const backedUp = await snapshot(customer().client, SHOP_DB);
  await mutate(customer().client, COPY_DB); // customers and events change, 'with space' is dropped
  const before = await snapshot(customer().client, COPY_DB);
  const r = await restore({ targetDatabaseName: COPY, collections: ['customers', 'with space'] }, main);
  expect(r).toMatchObject({ status: 'completed', collections: ['customers', 'with space'] });
  expect(r).toMatchObject({ documentsRestored: 42, documentsFailed: 0 });
  const after = await snapshot(customer().client, COPY_DB);
  expect(docsOf(after, 'customers')).toEqual(docsOf(backedUp, 'customers'));
  expect(docsOf(after, 'with space')).toEqual(docsOf(backedUp, 'with space'));
  // Not chosen: still as mutated, and a collection the backup lacks is not dropped.
  expect(docsOf(after, 'events')).toEqual(docsOf(before, 'events'));
  expect(docsOf(after, 'events')).not.toEqual(docsOf(backedUp, 'events'));
  expect(after.collections).toContain('added-later');
});

it('refuses a collection the backup does not hold, and targets that are not the user’s', async () => {
  const post = (body: Record<string, unknown>, token = owner.token) =>
    api('POST', `/api/backups/${backup._id}/restore`, {
      token,
      body: { databaseName: SHOP, ...body } as any,
    });
  const missing = await post({ targetDatabaseName: COPY, collections: ['nope'] });
  expect(missing.status).toBe(400);
  expect((missing.body as any).message).toBe("This backup holds no collection 'nope'");

  expect((await post({ targetDatabaseName: 'not-mine' })).status).toBe(404);

  // Another account's agent, reporting a database of the same name: unknown to this user.
  const stranger = await newUser('stranger');
  await upgradeToPro(stranger);
  const theirs = await setupAgent(stranger, [
    { label: COPY, uri: customer().uri(uniqueName('x_')), check: false },
  ]);
  const status = await api('GET', '/api/settings/system-status', { token: stranger.token });
  const theirAgent = (status.body as any).agents.find((a: any) => a.name === theirs.name);
  const foreign = await post({ targetDatabaseName: COPY, targetAgentId: theirAgent.id });
  expect(foreign.status).toBe(404);
  expect((foreign.body as any).message).toBe('Agent not found');
  await theirs.stop();
});

describe('onto another agent', () => {
  let dr: Agent;
  let stray: Agent;

  const agentId = async (a: Agent) => {
    const res = await api('GET', '/api/settings/system-status', { token: owner.token });
    return (res.body as any).agents.find((x: any) => x.name === a.name);
  };

  beforeAll(async () => {
    // The new server's agent runs with a key of its own; the key that made the backups leaves the
    // first agent's host as a file and is imported there while it runs.
    dr = await setupAgent(owner, [{ label: DR, uri: customer().uri(DR_DB), check: false }], { start: false });
    await dr.start({ env: { COFFER_AGENT_CONFIG_POLL_MS: '300' } });
    expect((await agentId(dr)).keyFingerprint).not.toBe(backup.keyFingerprint);
    const exported = await agentCli(['key', 'export'], main.config);
    expect(exported.code).toBe(0);
    const imported = await agentCli(['key', 'import', '-', '--force'], dr.config, exported.stdout);
    expect(imported.code).toBe(0);
    stray = await setupAgent(owner, [{ label: STRAY, uri: customer().uri(STRAY_DB), check: false }]);
  });

  it('reports which agents hold the key the backup was made with (a running agent reports an imported key)', async () => {
    await eventually(async () => {
      const a = await agentId(dr);
      if (a?.status !== 'active' || a.keyFingerprint !== backup.keyFingerprint)
        throw new Error(`dr agent is ${JSON.stringify(a)}`);
    }, 20_000);
    expect((await agentId(stray)).keyFingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect((await agentId(stray)).keyFingerprint).not.toBe(backup.keyFingerprint);
  });

  it('restores onto a second agent that imported the same key', async () => {
    const source = await snapshot(customer().client, SHOP_DB);
    const target = await agentId(dr);
    const r = await restore({ targetDatabaseName: DR, targetAgentId: target.id }, dr);
    expect(r).toMatchObject({
      status: 'completed',
      databaseName: DR,
      sourceDatabaseName: SHOP,
      sourceAgent: main.name,
      targetAgent: dr.name,
    });
    expect((await snapshot(customer().client, DR_DB)).documents).toEqual(source.documents);
    // The audit log names both sides.
    const entry = await eventually(async () => {
      const res = await api('GET', '/api/user/audit-logs?action=RESTORE_COMPLETED', { token: owner.token });
      const found = ((res.body as any).logs as any[]).find((l) => l.entityId === r._id);
      if (!found) throw new Error('no RESTORE_COMPLETED entry yet');
      return found;
    }, 20_000);
    expect(entry.details).toMatchObject({
      databaseName: DR,
      value: `From '${SHOP}' on ${main.name} into '${DR}' on ${dr.name}`,
    });
  });

  it('is refused by an agent holding another key, before it downloads anything', async () => {
    const target = await agentId(stray);
    const r = await restore({ targetDatabaseName: STRAY, targetAgentId: target.id }, stray);
    expect(r.status).toBe('failed');
    expect(r.error).toContain('this agent does not hold the encryption key the backup was made with');
    expect(r.error).toContain('coffer-agent key import FILE');
    expect(stray.logs().some((l) => l.msg === 'backup file downloaded')).toBe(false);
    expect(stray.logs().some((l) => l.msg === 'restore started')).toBe(false);
    const names = await customer().client.db(STRAY_DB).listCollections().toArray();
    expect(names).toEqual([]);
  });
});
