import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import { AGENT_DATA_ROUTES } from '@coffer/contracts';

/**
 * The agents' data plane: the only requests whose body may take as long as the backup needs. Any
 * other path under /api/agent/ gets the usual body deadline.
 */
const AGENT_DATA = Object.values(AGENT_DATA_ROUTES).map((r) => ({
  method: r.method,
  path: new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/?]+')}(?:\\?|$)`),
}));

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

const isAgentData = (req: IncomingMessage) =>
  AGENT_DATA.some((r) => r.method === req.method && r.path.test(req.url ?? ''));

/**
 * An answer sent before the request's body was read (a refusal: no key, a bad one, a path that
 * does not exist) leaves the client free to go on sending, and Node would go on reading and
 * discarding it with no time limit. The connection ends instead: half-closed once the answer is
 * out, so it arrives rather than a reset, and dropped after the keep-alive limit whatever the
 * client does.
 */
function closeAfterUnreadBody(req: IncomingMessage, res: ServerResponse, graceMs: number): void {
  res.once('finish', () => {
    if (req.complete) return;
    req.socket.end();
    setTimeout(() => req.socket.destroy(), graceMs).unref();
  });
}

/**
 * Runs before the app for each request. A request whose body has not fully arrived within the
 * body deadline (a client trickling bytes to hold the connection) is answered 408 and its
 * connection closed. The agents' data plane instead gets an inactivity limit on its socket: a
 * stream that moves on is never cut, one that stalls is.
 */
export function guardRequest(t: HttpTimeouts) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    closeAfterUnreadBody(req, res, t.keepAliveTimeoutMs);
    if (isAgentData(req)) {
      // Once answered, Node applies its keep-alive limit to the connection (and clears it when the
      // next request starts, which gets the usual rules); resetting the timeout here would leave
      // the connection with none at all.
      req.socket.setTimeout(t.agentDataIdleMs);
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
