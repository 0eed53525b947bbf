import type { IncomingMessage } from 'node:http';
import type { Express, Request } from 'express';

/**
 * The client's address of a request Express does not handle (a Socket.IO handshake), read the way
 * Express reads `req.ip`: TRUST_PROXY decides which X-Forwarded-For hops count.
 */
export function clientAddress(app: Express): (req: IncomingMessage) => string {
  return (req) => {
    const view = Object.create(app.request, {
      app: { value: app },
      headers: { value: req.headers },
      socket: { value: req.socket },
    }) as Request;
    return view.ip ?? req.socket.remoteAddress ?? 'unknown';
  };
}
