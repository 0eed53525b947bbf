import http from 'node:http';
import { startOpsServer } from '../ops-server';
import {
  agentsConnected,
  buildInfoMetric,
  grpcClientHandling,
  grpcCodeName,
  grpcPathLabels,
  grpcServerHandling,
  httpRequestDuration,
  METRIC_NAMES,
  metricsRegistry,
  recordJobOutcome,
  watchConsumerLag,
  watchDeadLetters,
  watchOverdueBackups,
  zeroSchedulerSkips,
} from './metrics';
import { buildInfo } from './build-info';

const scrape = (port: number) =>
  new Promise<string>((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}/metrics`, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });

/** The value of one sample line, e.g. `coffer_jobs_total{kind="backup",outcome="failed"}`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.split(' ').pop());
  }
  return undefined;
}

describe('process metrics', () => {
  it('registers each metric once, however often it is asked for', () => {
    expect(httpRequestDuration()).toBe(httpRequestDuration());
    expect(grpcServerHandling()).toBe(grpcServerHandling());
    expect(agentsConnected()).toBe(agentsConnected());
    // prom-client throws on a second registration of a name: reaching here means there was none.
    recordJobOutcome('backup', { status: 'failed' });
    recordJobOutcome('restore', { status: 'failed' });
    expect(metricsRegistry.getMetricsAsArray().filter((m) => m.name === 'coffer_jobs_total')).toHaveLength(1);
  });

  it('names every metric it registers in METRIC_NAMES (the dashboard check relies on it)', () => {
    httpRequestDuration();
    grpcServerHandling();
    grpcClientHandling();
    agentsConnected();
    recordJobOutcome('backup', { status: 'failed' });
    const stop = watchConsumerLag('S', 'c', () => Promise.resolve({ num_pending: 0, num_ack_pending: 0 }));
    stop();
    buildInfoMetric();
    zeroSchedulerSkips();
    watchOverdueBackups(() => Promise.resolve([]));
    watchDeadLetters(() => Promise.resolve([]))();
    const registered = metricsRegistry.getMetricsAsArray().map((m) => m.name);
    expect([...registered].sort()).toEqual([...METRIC_NAMES].sort());
  });

  it('labels gRPC calls by service, method and status name', () => {
    expect(grpcPathLabels('/coffer.auth.v1.AuthService/Login')).toEqual({
      grpc_service: 'coffer.auth.v1.AuthService',
      grpc_method: 'Login',
    });
    expect(grpcCodeName(0)).toBe('OK');
    expect(grpcCodeName(5)).toBe('NOT_FOUND');
    expect(grpcCodeName(undefined)).toBe('UNKNOWN');
  });

  it('serves job outcomes, durations and bytes on the ops /metrics with the service label', async () => {
    const started = new Date('2026-01-01T00:00:00Z');
    recordJobOutcome('backup', {
      status: 'completed',
      createdAt: new Date('2025-12-31T23:59:00Z'),
      startedAt: started,
      completedAt: new Date(started.getTime() + 90_000),
      size: 4096,
    });
    recordJobOutcome('restore', { status: 'completed', startedAt: started, completedAt: started });
    const ops = await startOpsServer({ service: 'metrics-test', port: 0, ready: () => true });
    try {
      const text = await scrape(ops.port);
      expect(
        sample(text, 'coffer_jobs_total', { kind: 'backup', outcome: 'completed', service: 'metrics-test' }),
      ).toBe(1);
      expect(sample(text, 'coffer_backup_bytes_total', { service: 'metrics-test' })).toBe(4096);
      // 90 s from the agent's start (not the command's creation) falls in the 120 s bucket, not the 60 s one.
      expect(sample(text, 'coffer_backup_duration_seconds_bucket', { outcome: 'completed', le: '60' })).toBe(
        0,
      );
      expect(sample(text, 'coffer_backup_duration_seconds_bucket', { outcome: 'completed', le: '120' })).toBe(
        1,
      );
      expect(sample(text, 'coffer_restore_duration_seconds_count', { outcome: 'completed' })).toBe(1);
      // The service's own registry (process defaults) is served next to these.
      expect(text).toContain('process_cpu_user_seconds_total');
    } finally {
      await ops.close();
    }
  });

  it('samples consumer lag at scrape time and forgets a consumer that stopped', async () => {
    let pending = 7;
    const stop = watchConsumerLag('AUTH', 'lag-test', (stream, consumer) => {
      expect([stream, consumer]).toEqual(['AUTH', 'lag-test']);
      return Promise.resolve({ num_pending: pending, num_ack_pending: 2 });
    });
    const ops = await startOpsServer({ service: 'lag-test', port: 0, ready: () => true });
    try {
      let text = await scrape(ops.port);
      expect(sample(text, 'nats_consumer_pending_messages', { stream: 'AUTH', consumer: 'lag-test' })).toBe(
        7,
      );
      expect(
        sample(text, 'nats_consumer_ack_pending_messages', { stream: 'AUTH', consumer: 'lag-test' }),
      ).toBe(2);
      pending = 0;
      text = await scrape(ops.port);
      expect(sample(text, 'nats_consumer_pending_messages', { consumer: 'lag-test' })).toBe(0);
      stop();
      text = await scrape(ops.port);
      expect(sample(text, 'nats_consumer_pending_messages', { consumer: 'lag-test' })).toBeUndefined();
    } finally {
      stop();
      await ops.close();
    }
  });

  it('serves which build runs, on every ops port', async () => {
    const ops = await startOpsServer({ service: 'build-test', port: 0, ready: () => true });
    try {
      const { version, commit } = buildInfo();
      expect(version).toMatch(/^\d+\.\d+\.\d+/);
      expect(commit).toMatch(/^([0-9a-f]{7,40}|unknown)$/);
      expect(
        sample(await scrape(ops.port), 'coffer_build_info', { version, commit, service: 'build-test' }),
      ).toBe(1);
    } finally {
      await ops.close();
    }
  });

  it('takes the version and commit from the environment when the image sets them', () => {
    expect(buildInfo({ COFFER_VERSION: '0.3.0', COFFER_COMMIT: 'ABCDEF1234567' })).toEqual({
      version: '0.3.0',
      commit: 'abcdef1234567',
    });
  });

  it('reads overdue databases by plan at scrape time, and drops them when the read fails', async () => {
    let answer: () => Promise<Array<{ plan: string; scheduled: number; overdue: number }>> = () =>
      Promise.resolve([
        { plan: 'free', scheduled: 4, overdue: 1 },
        { plan: 'pro', scheduled: 2, overdue: 0 },
      ]);
    watchOverdueBackups(() => answer());
    const ops = await startOpsServer({ service: 'overdue-test', port: 0, ready: () => true });
    try {
      let text = await scrape(ops.port);
      expect(sample(text, 'coffer_backup_overdue_databases', { plan: 'free' })).toBe(1);
      expect(sample(text, 'coffer_backup_scheduled_databases', { plan: 'free' })).toBe(4);
      expect(sample(text, 'coffer_backup_overdue_databases', { plan: 'pro' })).toBe(0);
      answer = () => Promise.reject(new Error('database away'));
      text = await scrape(ops.port);
      expect(sample(text, 'coffer_backup_overdue_databases', { plan: 'free' })).toBeUndefined();
    } finally {
      await ops.close();
    }
  });
});
