import fs from 'node:fs';
import path from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import {
  agentsConnected,
  grpcClientHandling,
  grpcServerHandling,
  httpRequestDuration,
  METRIC_NAMES,
  metricsRegistry,
  recordJobOutcome,
  watchConsumerLag,
} from './metrics';

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

// PromQL words that are not metric names.
const PROMQL_WORDS = new Set([
  'sum',
  'max',
  'min',
  'avg',
  'count',
  'topk',
  'bottomk',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'rate',
  'irate',
  'increase',
  'delta',
  'histogram_quantile',
  'absent',
  'and',
  'or',
  'unless',
  'clamp_min',
  'clamp_max',
  'offset',
  'bool',
  'le',
  'vector',
  'time',
]);

/** The metric names an expression reads: identifiers outside label matchers, ranges and strings. */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    // Grouping clauses name labels, not metrics.
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ');
  return (bare.match(/[A-Za-z_:][A-Za-z0-9_:]*/g) ?? []).filter((w) => !PROMQL_WORDS.has(w));
}

/** Every series name the services export: the process metrics and Node's defaults. */
function exportedSeries(): Set<string> {
  httpRequestDuration();
  grpcServerHandling();
  grpcClientHandling();
  agentsConnected();
  recordJobOutcome('backup', { status: 'failed' });
  watchConsumerLag('S', 'c', () => Promise.resolve({ num_pending: 0, num_ack_pending: 0 }))();
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults });
  const names = new Set<string>();
  for (const m of [...metricsRegistry.getMetricsAsArray(), ...defaults.getMetricsAsArray()]) {
    const { name, type } = m as unknown as { name: string; type: string };
    if (type === 'histogram') for (const s of ['_bucket', '_count', '_sum']) names.add(name + s);
    else names.add(name);
  }
  return names;
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
