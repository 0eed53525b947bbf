import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { tracingRequested, tracingServiceName } from './tracing';

describe('switching tracing on', () => {
  it('is off unless an OTLP endpoint is configured, and the standard off switches win', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://otel:4318/v1/traces' })).toBe(true);
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBe(false);
  });

  it('names the service after OTEL_SERVICE_NAME, else its folder', () => {
    expect(tracingServiceName({ OTEL_SERVICE_NAME: 'edge' }, '/app/services/gateway/dist/main.js')).toBe(
      'edge',
    );
    expect(tracingServiceName({}, '/app/services/gateway/dist/main.js')).toBe('coffer-gateway');
    expect(tracingServiceName({}, '/usr/bin/something')).toBe('coffer');
  });
});

// A real process with the built package, exporting to a real (minimal) OTLP/HTTP receiver: the
// instrumentations must hook modules loaded after @coffer/common, which only a fresh process shows.
const COMMON_DIST = path.resolve(__dirname, '../../dist/index.js');
const PROBE = `
  const common = require(${JSON.stringify(COMMON_DIST)});
  const http = require('node:http');
  const log = common.createLogger('probe');
  const server = http.createServer((req, res) => {
    log.info('handling the probe');
    res.end('ok');
  }).listen(0, '127.0.0.1', () => {
    http.get('http://127.0.0.1:' + server.address().port + '/probe?token=secret-query-token', (res) => {
      res.resume();
      res.on('end', async () => {
        server.close();
        const sdkLoaded = Object.keys(require.cache).some((k) => k.includes('sdk-node'));
        const enabled = common.tracingEnabled();
        await common.stopTracing(); // flushes, as a service's shutdown does
        console.log(JSON.stringify({ enabled, sdkLoaded }));
      });
    });
  });
`;

// A file, not `node -e`: the SDK records the command line as a resource attribute.
let probeFile: string;
beforeAll(() => {
  probeFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-tracing-test-')), 'probe.js');
  fs.writeFileSync(probeFile, PROBE);
});
afterAll(() => fs.rmSync(path.dirname(probeFile), { recursive: true, force: true }));

interface ProbeResult {
  enabled: boolean;
  sdkLoaded: boolean;
  /** The trace id on the handler's log line, if any. */
  loggedTraceId?: unknown;
}

function runProbe(env: NodeJS.ProcessEnv): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [probeFile], { env: { PATH: process.env.PATH, ...env } }, (err, stdout) => {
      if (err) return reject(err);
      const lines = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const logged = lines.find((l) => l.msg === 'handling the probe');
      const result = lines[lines.length - 1] as unknown as ProbeResult;
      resolve(logged?.traceId === undefined ? result : { ...result, loggedTraceId: logged.traceId });
    });
  });
}

describe('a service process', () => {
  let receiver: http.Server;
  let url: string;
  const exports: Array<{ path: string; body: Buffer }> = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        exports.push({ path: req.url ?? '', body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

  it('neither loads the SDK nor exports anything when tracing is not configured', async () => {
    exports.length = 0;
    expect(await runProbe({})).toEqual({ enabled: false, sdkLoaded: false });
    expect(exports).toEqual([]);
  });

  it('exports the spans of instrumented HTTP calls to the configured endpoint, query secrets redacted', async () => {
    exports.length = 0;
    const probe = await runProbe({
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_SERVICE_NAME: 'coffer-tracing-probe',
    });
    expect(probe).toEqual({
      enabled: true,
      sdkLoaded: true,
      loggedTraceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const traces = exports.filter((e) => e.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    const body = Buffer.concat(traces.map((t) => t.body));
    expect(body.includes('coffer-tracing-probe')).toBe(true);
    expect(body.includes('/probe')).toBe(true);
    expect(body.includes('secret-query-token')).toBe(false);
    // Traces only: no OTLP metrics or logs next to Prometheus and the JSON log lines.
    expect(exports.filter((e) => e.path !== '/v1/traces')).toEqual([]);
  });
});
