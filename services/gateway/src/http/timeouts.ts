import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';

/** Every route of the agents' data plane (contracts' AGENT_DATA_ROUTES) lives under this path. */
const AGENT_DATA_PREFIX = '/api/agent/';

/** The gateway's HTTP time bounds (GatewayConfig's HTTP_* settings). */
export interface HttpTimeouts {
  /** From the connection's first byte to the end of the request headers. */
  headersTimeoutMs: number;
  /** From the request's start to the end of its body, for every route but the agents' data plane. */
  bodyTimeoutMs: number;
  /** Between two requests on a kept-alive connection. */
  keepAliveTimeoutMs: number;
  /** The agents' uploads and downloads run as long as the backup needs, but not silently: no byte either way for this long ends them. */
  agentDataIdleMs: number;
}

/**
 * Node's own request timeout covers the whole request, which would cut an agent's upload of a
 * large backup; it stays off and the body deadline below applies per route instead. Headers and
 * idle keep-alive connections are bounded by the server itself.
 */
export const serverOptions = (t: HttpTimeouts): ServerOptions => ({
  requestTimeout: 0,
  headersTimeout: t.headersTimeoutMs,
  keepAliveTimeout: t.keepAliveTimeoutMs,
});

const isAgentData = (req: IncomingMessage) => (req.url ?? '').startsWith(AGENT_DATA_PREFIX);

/**
 * Runs before the app for each request. A request whose body has not fully arrived within the
 * body deadline (a client trickling bytes to hold the connection) is answered 408 and its
 * connection closed. The agents' data plane instead gets an inactivity limit on its socket: a
 * stream that moves on is never cut, one that stalls is.
 */
export function guardRequest(t: HttpTimeouts) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (isAgentData(req)) {
      req.socket.setTimeout(t.agentDataIdleMs);
      // The connection may carry other requests afterwards: they get the usual rules.
      res.once('close', () => req.socket.setTimeout(0));
      return;
    }
    const timer = setTimeout(() => {
      if (req.complete) return;
      if (!res.headersSent) {
        res.writeHead(408, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
        res.end(JSON.stringify({ message: 'The request body took too long to arrive' }));
      }
      // Whatever the app was still waiting for will not come: drop the connection.
      res.once('finish', () => req.socket.destroy());
      if (res.writableFinished) req.socket.destroy();
    }, t.bodyTimeoutMs);
    timer.unref();
    res.once('close', () => clearTimeout(timer));
  };
}
