import fs from 'node:fs';
import path from 'node:path';
import { METRIC_NAMES } from './metrics';
import { exportedSeries, metricNamesIn } from '../testing/promql-names';

// deploy/grafana/coffer-dashboard.json must only chart metrics the services export: a renamed
// metric otherwise leaves an empty panel nobody notices until the day it is needed.
const DASHBOARD = path.resolve(__dirname, '../../../../deploy/grafana/coffer-dashboard.json');

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr?: string; datasource?: { uid: string } }>;
  panels?: Panel[];
}

const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as {
  title: string;
  uid: string;
  templating: { list: Array<{ name: string; type: string; query: string }> };
  panels: Panel[];
};
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== 'row');

it('chooses its Prometheus through a datasource variable that every panel and query uses', () => {
  expect(dashboard.templating.list).toContainEqual(
    expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
  );
  for (const p of panels) {
    expect({ title: p.title, uid: p.datasource?.uid }).toEqual({ title: p.title, uid: '${datasource}' });
    for (const t of p.targets ?? []) expect(t.datasource?.uid).toBe('${datasource}');
  }
});

it('charts only metrics the services export, and each of the process metrics somewhere', () => {
  const exported = exportedSeries();
  const used = new Set<string>();
  for (const p of panels) {
    expect(p.targets?.length).toBeGreaterThan(0);
    for (const t of p.targets ?? []) {
      const names = metricNamesIn(t.expr ?? '');
      expect({ panel: p.title, names: names.length }).not.toEqual({ panel: p.title, names: 0 });
      for (const n of names) {
        expect({ panel: p.title, metric: n, exported: exported.has(n) }).toEqual({
          panel: p.title,
          metric: n,
          exported: true,
        });
        used.add(n.replace(/_(bucket|count|sum)$/, ''));
      }
    }
  }
  expect(METRIC_NAMES.filter((n) => !used.has(n))).toEqual([]);
});

it('reads metric names out of expressions, not labels, ranges or strings', () => {
  expect(
    metricNamesIn(
      'histogram_quantile(0.95, sum by (le, route) (rate(http_request_duration_seconds_bucket{route!~"x_y"}[5m])))',
    ),
  ).toEqual(['http_request_duration_seconds_bucket']);
  expect(metricNamesIn('sum(a_total) / sum(b_total{k="v"})')).toEqual(['a_total', 'b_total']);
});
