import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';

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
  collectDefaultMetrics({ register: registry });
  const server = http.createServer((req, res) => {
    void (async () => {
      if (req.url === '/livez') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      } else if (req.url === '/readyz') {
        const ok = await Promise.resolve(opts.ready()).catch(() => false);
        res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ready' : 'not ready');
      } else if (req.url === '/metrics') {
        res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
      } else {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(opts.port, opts.host ?? '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    registry,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
