import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type Express } from 'express';
import helmet from 'helmet';
import type { Logger } from '@coffer/common';
import { observeRequests, resumeRequestContext } from './access-log.js';
import { downloadsRouter } from './downloads.js';
import { apiNotFound, errorHandler } from './errors.js';
import { API_VERSION, JSON_BODY_LIMIT, openApiDocument } from './openapi.js';
import type { RouteTable } from './route.js';

/** The Express app: security headers, JSON parsing, the API routes, the OpenAPI document, the web app. */
/** Express reads a numeric string as an address; a number of hops must be a number. */
export function trustProxySetting(value: string): boolean | number | string {
  if (value === 'false' || value === '') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

export function createApp(deps: {
  log: Logger;
  routes: RouteTable;
  webDist?: string;
  /** The folder served under /downloads (AGENT_DOWNLOADS_DIR). */
  downloads: string | undefined;
  trustProxy: string;
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(deps.trustProxy));
  app.use(observeRequests(deps.log));
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          // Chakra UI (emotion) injects its styles at run time.
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          // 'self' covers the same origin's ws:/wss: (CSP 3): the live socket needs nothing more, and
          // injected script cannot open a socket to another host to carry data off.
          connectSrc: ["'self'"],
          upgradeInsecureRequests: null,
        },
      },
      // The app is served over plain HTTP locally; HSTS belongs to the TLS-terminating proxy.
      strictTransportSecurity: false,
    }),
  );

  const api = Router();
  const json = express.json({ limit: JSON_BODY_LIMIT, strict: true });
  // The payment provider signs the raw bytes of its webhook: that route reads the body itself. The
  // agents' paths take no JSON: nothing there is read before the API key is checked.
  api.use((req, res, next) =>
    req.path === '/api/billing/webhook' || req.path.startsWith('/api/agent/') ? next() : json(req, res, next),
  );
  api.use(resumeRequestContext);
  const doc = openApiDocument(deps.routes.specs, API_VERSION);
  api.get('/api/openapi.json', (_req, res) => {
    res.json(doc);
  });
  deps.routes.mount(api);
  app.use(api);
  app.use('/api', apiNotFound);
  app.use(downloadsRouter(deps.downloads));

  const webDist = deps.webDist;
  if (webDist && fs.existsSync(path.join(webDist, 'index.html'))) {
    app.use(express.static(webDist, { index: false, maxAge: '1h' }));
    // Client-side routes (/dashboard, /reset-password/…) all load the app shell.
    app.get(/^(?!\/api\/).*/, (_req, res) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(path.join(webDist, 'index.html'));
    });
  } else {
    deps.log.warn({ webDist }, 'web app not built; serving the API only');
  }
  app.use(errorHandler(deps.log));
  return app;
}
