// A fault-injecting HTTP proxy between the storage service and MinIO: it forwards every request
// untouched (the Host header too, so S3 signatures still verify) until told to answer 500s, to
// hold each answer back, to pass answers on a little at a time (so a download is surely under
// way when MinIO is killed), or to answer nothing at all (a hung S3).
import http from 'node:http';
import type net from 'node:net';
import { Transform } from 'node:stream';

export type ProxyMode =
  | { kind: 'pass' }
  | { kind: 'error500' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'trickle'; bytesPerTick: number; tickMs: number }
  | { kind: 'silent' };

/** Passes at most `bytesPerTick` bytes every `tickMs`. */
function trickle(bytesPerTick: number, tickMs: number): Transform {
  return new Transform({
    highWaterMark: bytesPerTick,
    transform(chunk: Buffer, _enc, done) {
      const pieces: Buffer[] = [];
      for (let at = 0; at < chunk.length; at += bytesPerTick)
        pieces.push(chunk.subarray(at, at + bytesPerTick));
      const next = () => {
        const piece = pieces.shift();
        if (!piece) return done();
        this.push(piece);
        setTimeout(next, tickMs);
      };
      next();
    },
  });
}

export interface FaultProxy {
  port: number;
  mode: ProxyMode;
  /** Requests answered with a fault since the mode was last set. */
  faults: number;
  setMode(mode: ProxyMode): void;
  close(): Promise<void>;
}

const INTERNAL_ERROR =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code>' +
  '<Message>We encountered an internal error. Please try again.</Message></Error>';

export async function startFaultProxy(port: number, targetPort: number): Promise<FaultProxy> {
  const sockets = new Set<net.Socket>();
  const proxy: FaultProxy = {
    port,
    mode: { kind: 'pass' },
    faults: 0,
    setMode(mode) {
      proxy.mode = mode;
      proxy.faults = 0;
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const mode = proxy.mode;
    if (mode.kind === 'error500') {
      proxy.faults++;
      req.resume();
      req.on('end', () => {
        res.writeHead(500, { 'content-type': 'application/xml' });
        res.end(INTERNAL_ERROR);
      });
      return;
    }
    if (mode.kind === 'silent') {
      // Reads what it is sent and never answers; the client's own timeout must end the request.
      proxy.faults++;
      req.resume();
      return;
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        const answer = () => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          if (mode.kind !== 'trickle') return up.pipe(res);
          proxy.faults++;
          // MinIO killed mid-answer: the connection to the client breaks too, as it would without
          // the proxy in between.
          up.on('close', () => {
            if (!up.complete) res.destroy();
          });
          up.pipe(trickle(mode.bytesPerTick, mode.tickMs)).pipe(res);
        };
        if (mode.kind === 'slow') {
          proxy.faults++;
          setTimeout(answer, mode.delayMs);
        } else answer();
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return proxy;
}
