import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { exportedSeries, metricNamesIn } from '../testing/promql-names';

// deploy/prometheus/coffer-alerts.yml must read only metrics that exist, link a runbook section
// that exists, and have a promtool test that sees it fire (deploy/ci/check-prometheus.sh runs them).
const ROOT = path.resolve(__dirname, '../../../..');
const read = (p: string) => fs.readFileSync(path.join(ROOT, p), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  annotations: { summary: string; runbook_url: string };
}
const rules = (
  parse(read('deploy/prometheus/coffer-alerts.yml')) as { groups: Array<{ rules: Rule[] }> }
).groups.flatMap((g) => g.rules);
const tests = (
  parse(read('deploy/prometheus/coffer-alerts.test.yml')) as {
    tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
  }
).tests.flatMap((t) => t.alert_rule_test);

// Exported by something else than the services' shared registry: Prometheus itself (`up`) and
// storage's own counters (services/storage/src/metrics.ts).
const ELSEWHERE = new Set(['up', 'coffer_storage_uploads_total']);

/** GitHub's anchor of a Markdown heading. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');

it('reads only metrics the services export', () => {
  const exported = exportedSeries();
  for (const r of rules)
    for (const name of metricNamesIn(r.expr))
      expect({ alert: r.alert, name, exported: exported.has(name) || ELSEWHERE.has(name) }).toEqual({
        alert: r.alert,
        name,
        exported: true,
      });
});

it('links each alert to a section of docs/runbook.md that names it', () => {
  const runbook = read('docs/runbook.md');
  const sections = new Map<string, string>();
  for (const part of runbook.split(/^## /m).slice(1)) {
    const [heading, ...body] = part.split('\n');
    sections.set(anchor(heading!), body.join('\n'));
  }
  for (const r of rules) {
    const [file, section] = r.annotations.runbook_url.split('#');
    expect({ alert: r.alert, file }).toEqual({ alert: r.alert, file: 'docs/runbook.md' });
    expect({ alert: r.alert, section: sections.has(section!) }).toEqual({ alert: r.alert, section: true });
    expect({ alert: r.alert, named: sections.get(section!)!.includes(`\`${r.alert}\``) }).toEqual({
      alert: r.alert,
      named: true,
    });
  }
});

it('has a promtool test in which each alert fires', () => {
  const firing = new Set(tests.filter((t) => t.exp_alerts.length > 0).map((t) => t.alertname));
  expect(rules.map((r) => r.alert).filter((a) => !firing.has(a))).toEqual([]);
});
