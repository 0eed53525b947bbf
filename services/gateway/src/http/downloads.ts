import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type Request, type Response } from 'express';

const TYPES: Record<string, string> = {
  '.sh': 'text/x-shellscript; charset=utf-8',
  '.ps1': 'text/plain; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

/** The package repositories' folders in the downloads folder, each served under /downloads/NAME/. */
const PACKAGE_REPOSITORIES = ['apt', 'yum'] as const;

/**
 * What the setup wizard and the installers download (agent/scripts/build-binaries.mjs builds the
 * folder): the agent binaries and their zstd copies, the bundled Database Tools, the installers,
 * the Windows service wrapper, SHA256SUMS, its signature SHA256SUMS.minisig and release.json. Only
 * files listed in SHA256SUMS (and SHA256SUMS and its signature) are served, at
 * `/downloads/NAME` (the spec's paths: the release this gateway carries), `/downloads/latest/NAME`
 * (the same) and `/downloads/VERSION/NAME`, answered only when VERSION is that release. During a
 * rolling update two gateway versions answer behind one address: the agent and install.sh read
 * release.json, then fetch everything else under its version, so a file never arrives from one
 * release and its checksums from another (the other gateway answers 404, and they try again).
 */
export function downloadsRouter(dir: string | undefined): Router {
  const router = Router();
  let listed: { stamp: number; names: Set<string>; version?: string } = { stamp: -1, names: new Set() };

  /** The names in SHA256SUMS and the release's version, re-read when a rebuild replaced them. */
  const served = (): { names: Set<string>; version?: string } => {
    if (!dir) return { names: new Set() };
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
      listed = { stamp, names, version: releaseVersion(dir) };
    }
    return listed;
  };

  const send = (name: string, res: Response) => {
    const file = dir && served().names.has(name) ? path.join(dir, name) : undefined;
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
  };

  // The APT and YUM repositories (agent/scripts/package-repos.mjs): their signed indexes name the
  // packages at apt/pool/main/NAME.deb and yum/NAME.rpm, which are the release's own files (listed
  // in SHA256SUMS); everything else is a file of the folders the build wrote. Before the versioned
  // route below, which would take /downloads/apt/NAME for a release named apt.
  router.get('/downloads/apt/pool/main/:name', (req, res: Response, next) =>
    req.params.name.endsWith('.deb') ? send(req.params.name, res) : next(),
  );
  router.get('/downloads/yum/:name', (req, res: Response, next) =>
    req.params.name.endsWith('.rpm') ? send(req.params.name, res) : next(),
  );
  for (const repo of PACKAGE_REPOSITORIES) {
    if (dir)
      router.use(
        `/downloads/${repo}`,
        express.static(path.join(dir, repo), {
          index: false,
          redirect: false,
          dotfiles: 'ignore',
          cacheControl: false,
          // The indexes change under the same names with every build: always revalidate.
          setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
        }),
      );
    router.use(`/downloads/${repo}`, (req: Request, res: Response) => {
      res.status(404).json({
        message: `${repo}${req.path.slice(0, 200)} is not in this server's ${repo === 'apt' ? 'APT' : 'YUM'} repository (the packages are built by \`npm run build\` where dpkg-deb, rpmbuild and createrepo_c are installed)`,
        code: 'NOT_FOUND',
      });
    });
  }
  router.get('/downloads/:name', (req, res: Response) => send(req.params.name, res));
  router.get('/downloads/:release/:name', (req, res: Response) => {
    const { release, name } = req.params;
    const { version } = served();
    if (release !== 'latest' && release !== version) {
      res.status(404).json({
        message:
          `release ${release.slice(0, 40)} is not on this server (it serves ${version ?? 'none'}); ` +
          'while Coffer is being updated its servers may offer different releases: try again in a minute',
        code: 'NOT_FOUND',
      });
      return;
    }
    send(name, res);
  });
  return router;
}

function releaseVersion(dir: string): string | undefined {
  try {
    const version = (
      JSON.parse(fs.readFileSync(path.join(dir, 'release.json'), 'utf8')) as { version?: unknown }
    ).version;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}
