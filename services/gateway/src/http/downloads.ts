import fs from 'node:fs';
import path from 'node:path';
import { Router, type Response } from 'express';

const TYPES: Record<string, string> = {
  '.sh': 'text/x-shellscript; charset=utf-8',
  '.ps1': 'text/plain; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

/**
 * What the setup wizard and the installers download (agent/scripts/build-binaries.mjs builds the
 * folder): the agent binaries and their zstd copies, the installers, the Windows service wrapper,
 * SHA256SUMS, its signature SHA256SUMS.minisig and release.json. Only files listed in SHA256SUMS
 * (and SHA256SUMS and its signature) are served.
 */
export function downloadsRouter(dir: string | undefined): Router {
  const router = Router();
  let listed: { stamp: number; names: Set<string> } = { stamp: -1, names: new Set() };

  /** The names in SHA256SUMS, re-read when a rebuild replaced it. */
  const served = (): Set<string> => {
    if (!dir) return new Set();
    const sums = path.join(dir, 'SHA256SUMS');
    const stamp = fs.statSync(sums, { throwIfNoEntry: false })?.mtimeMs ?? -1;
    if (stamp !== listed.stamp) {
      // release.json is listed in SHA256SUMS (bound to the signature) but stays served without it.
      const names = new Set(['SHA256SUMS', 'SHA256SUMS.minisig', 'release.json']);
      if (stamp >= 0)
        for (const line of fs.readFileSync(sums, 'utf8').split('\n')) {
          const name = line.match(/^[0-9a-f]{64} [ *](\S+)$/)?.[1];
          if (name) names.add(name);
        }
      listed = { stamp, names };
    }
    return listed.names;
  };

  router.get('/downloads/:name', (req, res: Response) => {
    const name = req.params.name;
    const file = dir && served().has(name) ? path.join(dir, name) : undefined;
    if (!file || !fs.existsSync(file)) {
      res.status(404).json({
        message: `${name} is not available on this server (the agent downloads are built by \`npm run build\`)`,
        code: 'NOT_FOUND',
      });
      return;
    }
    res.setHeader('Content-Type', TYPES[path.extname(name)] ?? 'application/octet-stream');
    if (!TYPES[path.extname(name)] && !name.startsWith('SHA256SUMS'))
      res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
    // A rebuild replaces these files under the same names: always revalidate.
    res.sendFile(path.resolve(file), { cacheControl: false, headers: { 'Cache-Control': 'no-cache' } });
  });
  return router;
}
