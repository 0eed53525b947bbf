import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { buildInfoMetric, metricsRegistry } from './observability/metrics.js';
import { stopTracing } from './observability/tracing.js';

export type ReadinessCheck = () => Promise<boolean> | boolean;

export interface OpsServer {
  port: number;
  registry: Registry;
  close(): Promise<void>;
}

/**
 * Liveness (`/livez`), readiness (`/readyz`) and Prometheus metrics (`/metrics`) for one service,
 * on a port of their own so probes never compete with user traffic.
 */
export async function startOpsServer(opts: {
  service: string;
  port: number;
  host?: string;
  ready: ReadinessCheck;
  registry?: Registry;
}): Promise<OpsServer> {
  const registry = opts.registry ?? new Registry();
  registry.setDefaultLabels({ service: opts.service });
  metricsRegistry.setDefaultLabels({ service: opts.service });
  collectDefaultMetrics({ register: registry });
  buildInfoMetric();
  // The service's own registry and the process-wide one (observability/metrics.ts) hold different
  // names, so their texts concatenate into one valid exposition.
  const metrics = async () =>
    registry === metricsRegistry
      ? registry.metrics()
      : `${await registry.metrics()}\n${await metricsRegistry.metrics()}`;
  const server = http.createServer((req, res) => {
    void (async () => {
      if (req.url === '/livez') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      } else if (req.url === '/readyz') {
        const ok = await Promise.resolve(opts.ready()).catch(() => false);
        res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ready' : 'not ready');
      } else if (req.url === '/metrics') {
        res.writeHead(200, { 'content-type': registry.contentType }).end(await metrics());
      } else {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(opts.port, opts.host ?? '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    registry,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // The ops port closes last in a shutdown: spans of the steps before it still get exported.
      await stopTracing();
    },
  };
}
