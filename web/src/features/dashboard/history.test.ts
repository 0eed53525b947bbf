import type { Backup } from '../../api/generated';
import { durationSeconds, formatSeconds, historyPoints } from './history';

const backup = (id: string, at: string, extra: Partial<Backup> = {}): Backup => ({
  _id: id,
  databaseName: 'shop',
  timestamp: at,
  createdAt: at,
  completedAt: at,
  size: 100,
  status: 'completed',
  type: 'auto',
  ...extra,
});

describe('history chart data', () => {
  it('takes the finished backups of one database, oldest first, failures without a size', () => {
    const points = historyPoints(
      [
        backup('c', '2025-03-03T00:00:00Z', { startedAt: '2025-03-02T23:58:00Z', size: 300 }),
        backup('a', '2025-03-01T00:00:00Z', { status: 'failed', size: 0 }),
        backup('p', '2025-03-04T00:00:00Z', { status: 'in-progress', completedAt: undefined }),
        backup('o', '2025-03-02T00:00:00Z', { databaseName: 'crm' }),
      ],
      'shop',
    );
    expect(points).toEqual([
      { id: 'a', at: '2025-03-01T00:00:00Z', failed: true, size: null, duration: 0 },
      { id: 'c', at: '2025-03-03T00:00:00Z', failed: false, size: 300, duration: 120 },
    ]);
  });

  it('keeps only the latest points', () => {
    const list = Array.from({ length: 40 }, (_, i) =>
      backup(String(i).padStart(2, '0'), new Date(Date.UTC(2025, 0, 1 + i)).toISOString()),
    );
    const points = historyPoints(list, 'shop', 30);
    expect(points).toHaveLength(30);
    expect(points[0]!.id).toBe('10');
    expect(points.at(-1)!.id).toBe('39');
  });

  it('measures from the agent start, else from creation, and not at all without an end', () => {
    expect(durationSeconds({ createdAt: '2025-01-01T00:00:00Z', completedAt: '2025-01-01T00:01:30Z' })).toBe(
      90,
    );
    expect(
      durationSeconds({
        createdAt: '2025-01-01T00:00:00Z',
        startedAt: '2025-01-01T00:01:00Z',
        completedAt: '2025-01-01T00:01:30Z',
      }),
    ).toBe(30);
    expect(durationSeconds({ createdAt: '2025-01-01T00:00:00Z' })).toBeNull();
    expect([formatSeconds(45), formatSeconds(180), formatSeconds(5400)]).toEqual(['45 s', '3 min', '1.5 h']);
  });
});
