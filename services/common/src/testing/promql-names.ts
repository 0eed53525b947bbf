import { collectDefaultMetrics, Registry } from 'prom-client';
import {
  agentsConnected,
  buildInfoMetric,
  grpcClientHandling,
  grpcServerHandling,
  httpRequestDuration,
  metricsRegistry,
  recordJobOutcome,
  watchConsumerLag,
  watchDeadLetters,
  watchOverdueBackups,
  zeroSchedulerSkips,
} from '../observability/metrics.js';

// For the checks of what reads the metrics (the Grafana dashboard, the alert rules): the metric
// names an expression reads, and every series the services export.

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
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\boffset\s+\d+[a-z]+/g, ' ')
    // Grouping clauses name labels, not metrics.
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ');
  return (bare.match(/[A-Za-z_:][A-Za-z0-9_:]*/g) ?? []).filter((w) => !PROMQL_WORDS.has(w));
}

/** Every series name the services export: the process metrics and Node's defaults. */
export function exportedSeries(): Set<string> {
  httpRequestDuration();
  grpcServerHandling();
  grpcClientHandling();
  agentsConnected();
  recordJobOutcome('backup', { status: 'failed' });
  watchConsumerLag('S', 'c', () => Promise.resolve({ num_pending: 0, num_ack_pending: 0 }))();
  buildInfoMetric();
  zeroSchedulerSkips();
  watchOverdueBackups(() => Promise.resolve([]));
  watchDeadLetters(() => Promise.resolve([]))();
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
