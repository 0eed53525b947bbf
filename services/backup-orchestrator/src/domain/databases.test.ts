import { OTHER_USER, USER, testWorld } from '../test-world';

describe('databases', () => {
  it('adds reported names enabled and marks only the first dbLimit active', async () => {
    const w = testWorld({ plan: { dbLimit: 2 } });
    await w.connectAgent(['a']);
    w.clock.advance(1000);
    await w.connectAgent(['a', 'b', 'c']);
    const list = await w.databases.list(USER);
    expect(list.map((d) => [d.name, d.enabled, d.isActive])).toEqual([
      ['a', true, true],
      ['b', true, true],
      ['c', true, false],
    ]);
  });

  it('disabling one lets the next enabled database in', async () => {
    const w = testWorld({ plan: { dbLimit: 1 } });
    await w.connectAgent(['a', 'b']);
    const [a] = await w.databases.list(USER);
    const after = await w.databases.setActive(USER, a!.id, false);
    expect(after.map((d) => [d.name, d.isActive])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });

  it('refuses to enable past the plan limit with LIMIT_REACHED and changes nothing', async () => {
    const w = testWorld({ plan: { dbLimit: 1 } });
    await w.connectAgent(['a', 'b']);
    const [, b] = await w.databases.list(USER);
    const refused = {
      kind: 'LIMIT_REACHED',
      code: 'DATABASE_LIMIT_REACHED',
      message: 'Your plan allows 1 active database. Disable another database or upgrade your plan.',
    };
    // b was reported enabled but is inactive (a came first): turning it "on" cannot make it run.
    await expect(w.databases.setActive(USER, b!.id, true)).rejects.toMatchObject(refused);
    await w.databases.setActive(USER, b!.id, false);
    await expect(w.databases.setActive(USER, b!.id, true)).rejects.toMatchObject(refused);
    expect((await w.databases.list(USER)).map((d) => [d.name, d.enabled, d.isActive])).toEqual([
      ['a', true, true],
      ['b', false, false],
    ]);
  });

  it('says so in the plural for larger plans', async () => {
    const w = testWorld({ plan: { dbLimit: 3 } });
    await w.connectAgent(['a', 'b', 'c', 'd']);
    const d = (await w.databases.list(USER))[3]!;
    await expect(w.databases.setActive(USER, d.id, true)).rejects.toThrow(
      'Your plan allows 3 active databases. Disable another database or upgrade your plan.',
    );
  });

  it("answers NOT_FOUND for another user's database", async () => {
    const w = testWorld();
    await w.connectAgent(['a']);
    const [a] = await w.databases.list(USER);
    await expect(w.databases.setActive(OTHER_USER, a!.id, false)).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
  });
});

describe('what the audit log hears about databases', () => {
  it('announces a database turned off or on by name, and nothing when the toggle changes nothing', async () => {
    const w = testWorld({ plan: { dbLimit: 2 } });
    await w.connectAgent(['a']);
    const [a] = await w.databases.list(USER);
    await w.databases.setActive(USER, a!.id, false);
    await w.databases.setActive(USER, a!.id, false);
    await w.databases.setActive(USER, a!.id, true);
    expect(w.events.of('settings.database.updated').map((e) => e.data)).toEqual([
      { userId: USER, databaseId: a!.id, databaseName: 'a', isActive: false },
      { userId: USER, databaseId: a!.id, databaseName: 'a', isActive: true },
    ]);
  });

  it('announces a change of verification with both modes, and nothing when the mode stays', async () => {
    const w = testWorld();
    await w.connectAgent(['a']);
    const [a] = await w.databases.list(USER);
    await w.databases.setVerify(USER, a!.id, 'each');
    await w.databases.setVerify(USER, a!.id, 'each');
    await w.databases.setVerify(USER, a!.id, 'off');
    expect(w.events.of('settings.verification.updated').map((e) => e.data)).toEqual([
      { userId: USER, databaseId: a!.id, databaseName: 'a', from: 'off', to: 'each' },
      { userId: USER, databaseId: a!.id, databaseName: 'a', from: 'each', to: 'off' },
    ]);
    await expect(w.databases.setVerify(OTHER_USER, a!.id, 'weekly')).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
  });
});
