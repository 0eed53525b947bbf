import {
  NO_KEY_REASON,
  OFFLINE_REASON,
  restoreRequestFields,
  restoreTargets,
  targetLabel,
} from './restoreTargets';

const backup = { databaseName: 'shop', agentId: 'a1', keyFingerprint: 'k1' };
const agents = [
  { id: 'a2', name: 'dr-1', status: 'active' as const, databases: ['shop', 'shop-dr'], keyFingerprint: 'k1' },
  {
    id: 'a1',
    name: 'web-1',
    status: 'active' as const,
    databases: ['shop', 'shop-copy'],
    keyFingerprint: 'k1',
  },
  { id: 'a3', name: 'stray', status: 'active' as const, databases: ['other'], keyFingerprint: 'k9' },
  { id: 'a4', name: 'gone', status: 'offline' as const, databases: ['old'], keyFingerprint: 'k1' },
];

describe('restore targets', () => {
  const targets = restoreTargets(backup, agents);

  it("lists the backup's own database first, then every database of every agent", () => {
    expect(targets.map((t) => t.value)).toEqual([
      'a1:shop',
      'a2:shop',
      'a2:shop-dr',
      'a4:old',
      'a3:other',
      'a1:shop-copy',
    ]);
    expect(targets[0]).toMatchObject({ isSource: true, available: true });
    expect(targetLabel(targets[0]!)).toBe("shop on web-1 (the backup's own database)");
  });

  it('offers only active agents that hold the key the backup was made with', () => {
    const byValue = Object.fromEntries(targets.map((t) => [t.value, t]));
    expect(byValue['a2:shop-dr']).toMatchObject({ available: true });
    expect(byValue['a3:other']).toMatchObject({ available: false, reason: NO_KEY_REASON });
    expect(byValue['a4:old']).toMatchObject({ available: false, reason: OFFLINE_REASON });
    expect(targetLabel(byValue['a3:other']!)).toBe(`other on stray (${NO_KEY_REASON})`);
  });

  it("sends the spec's request for the default, and only what differs otherwise", () => {
    const all = ['customers', 'events'];
    const byValue = Object.fromEntries(targets.map((t) => [t.value, t]));
    expect(restoreRequestFields(backup, byValue['a1:shop'], undefined, all)).toEqual({});
    expect(restoreRequestFields(backup, byValue['a1:shop'], all, all)).toEqual({});
    expect(restoreRequestFields(backup, byValue['a1:shop'], ['events'], all)).toEqual({
      collections: ['events'],
    });
    expect(restoreRequestFields(backup, byValue['a1:shop-copy'], undefined, all)).toEqual({
      targetDatabaseName: 'shop-copy',
      targetAgentId: 'a1',
    });
    expect(restoreRequestFields(backup, byValue['a2:shop'], ['customers'], all)).toEqual({
      targetAgentId: 'a2',
      collections: ['customers'],
    });
  });
});
