import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { io } from 'socket.io-client';
import { api, baseUrl, newUser } from './helpers';

const AGENT_VERSION = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../agent/package.json'), 'utf8'))
  .version as string;

describe('gateway', () => {
  it('serves an OpenAPI document listing every route it serves', async () => {
    const res = await api('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    for (const [path, method] of [
      ['/api/auth/login', 'post'],
      ['/api/auth/reset-password/{token}', 'get'],
      ['/api/user/profile', 'get'],
      ['/api/user/audit-logs', 'get'],
      ['/api/admin/users/{id}/ban', 'put'],
      ['/api/settings/plans', 'get'],
    ]) {
      expect(res.body.paths[path!]?.[method!]).toBeDefined();
    }
    expect(
      res.body.paths['/api/auth/register'].post.requestBody.content['application/json'].schema.required,
    ).toEqual(expect.arrayContaining(['name', 'email', 'password']));
  });

  it('serves the committed document (services/gateway/openapi.json), generated from its own routes', async () => {
    const res = await api('GET', '/api/openapi.json');
    const committed = path.resolve(__dirname, '../../services/gateway/openapi.json');
    expect(res.body).toEqual(JSON.parse(fs.readFileSync(committed, 'utf8')));
  });

  it('sends standard security headers', async () => {
    const res = await api('GET', '/api/settings/plans');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const res = await api('GET', '/api/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('accepts Socket.IO connections only with a valid session token', async () => {
    const u = await newUser();
    const connect = (token: string) =>
      new Promise<string>((resolve) => {
        const s = io(baseUrl(), {
          path: '/api/socket.io',
          auth: { token },
          reconnection: false,
          transports: ['websocket'],
        });
        s.on('connect', () => {
          s.close();
          resolve('connected');
        });
        s.on('connect_error', (err) => {
          s.close();
          resolve(err.message);
        });
      });
    expect(await connect(u.token)).toBe('connected');
    expect(await connect('bad-token')).toBe('Invalid or expired token');
  });
});

describe('agent downloads', () => {
  it('serves every file of SHA256SUMS with the hash it lists (release.json too), and its signature', async () => {
    const sums = await fetch(`${baseUrl()}/downloads/SHA256SUMS`);
    expect(sums.status).toBe(200);
    const listed = new Map(
      (await sums.text())
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/))
        .map(([hash, name]) => [name!, hash!]),
    );
    expect([...listed.keys()].sort()).toEqual([
      `coffer-agent-${AGENT_VERSION}-1.aarch64.rpm`,
      `coffer-agent-${AGENT_VERSION}-1.x86_64.rpm`,
      'coffer-agent-linux-arm64',
      'coffer-agent-linux-arm64.zst',
      'coffer-agent-linux-x64',
      'coffer-agent-linux-x64.zst',
      'coffer-agent-service.exe',
      'coffer-agent-windows-x64.exe',
      'coffer-agent-windows-x64.exe.zst',
      `coffer-agent_${AGENT_VERSION}_amd64.deb`,
      `coffer-agent_${AGENT_VERSION}_arm64.deb`,
      'install.ps1',
      'install.sh',
      ...['mongodump', 'mongorestore'].flatMap((tool) => [
        `${tool}-linux-arm64`,
        `${tool}-linux-arm64.zst`,
        `${tool}-linux-x64`,
        `${tool}-linux-x64.zst`,
        `${tool}-windows-x64.exe`,
        `${tool}-windows-x64.exe.zst`,
      ]),
      'release.json',
    ]);
    for (const [name, hash] of listed) {
      const res = await fetch(`${baseUrl()}/downloads/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const body = Buffer.from(await res.arrayBuffer());
      expect(createHash('sha256').update(body).digest('hex')).toBe(hash);
    }
    const release = await (await fetch(`${baseUrl()}/downloads/release.json`)).json();
    expect(release.files['linux-x64']).toMatchObject({
      name: 'coffer-agent-linux-x64',
      sha256: listed.get('coffer-agent-linux-x64'),
      compressed: { name: 'coffer-agent-linux-x64.zst', sha256: listed.get('coffer-agent-linux-x64.zst') },
    });
    expect(Object.keys(release.files).sort()).toEqual(['linux-arm64', 'linux-x64', 'windows-x64']);
    const signature = await fetch(`${baseUrl()}/downloads/SHA256SUMS.minisig`);
    expect(signature.status).toBe(200);
    expect((await signature.text()).split('\n')[2]).toMatch(
      /^trusted comment: timestamp:\d+\tfile:SHA256SUMS\t/,
    );
  });

  it('serves the same files under the release version and latest, and another version nowhere', async () => {
    const { version } = await (await fetch(`${baseUrl()}/downloads/release.json`)).json();
    const flat = await (await fetch(`${baseUrl()}/downloads/SHA256SUMS`)).text();
    for (const prefix of [version, 'latest']) {
      const res = await fetch(`${baseUrl()}/downloads/${prefix}/SHA256SUMS`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(flat);
      const installer = await fetch(`${baseUrl()}/downloads/${prefix}/install.sh`);
      expect(installer.status).toBe(200);
    }
    // Another gateway's release (a rolling update): 404, never this release's files.
    const other = await api('GET', '/downloads/9.9.9/SHA256SUMS');
    expect(other.status).toBe(404);
    expect(other.body.message).toMatch(
      new RegExp(`^release 9\\.9\\.9 is not on this server \\(it serves ${version.replace(/\./g, '\\.')}\\)`),
    );
    expect((await api('GET', `/downloads/${version}/agent.json`)).status).toBe(404);
  });

  it('serves the APT and YUM repositories, signed, and answers 404 for what they do not hold', async () => {
    const inRelease = await fetch(`${baseUrl()}/downloads/apt/dists/stable/InRelease`);
    expect(inRelease.status).toBe(200);
    expect(inRelease.headers.get('cache-control')).toBe('no-cache');
    const text = await inRelease.text();
    expect(text).toMatch(/^-----BEGIN PGP SIGNED MESSAGE-----\n/);
    expect(text).toMatch(/^ [0-9a-f]{64} +\d+ main\/binary-amd64\/Packages\.gz$/m);
    const packages = await (
      await fetch(`${baseUrl()}/downloads/apt/dists/stable/main/binary-arm64/Packages`)
    ).text();
    expect(packages).toContain(`Filename: pool/main/coffer-agent_${AGENT_VERSION}_arm64.deb`);
    // The packages the indexes name are the release's own files.
    for (const [repoPath, name] of [
      [`apt/pool/main`, `coffer-agent_${AGENT_VERSION}_arm64.deb`],
      ['yum', `coffer-agent-${AGENT_VERSION}-1.x86_64.rpm`],
    ]) {
      const [inRepo, plain] = await Promise.all(
        [`${repoPath}/${name}`, name].map(async (p) =>
          Buffer.from(await (await fetch(`${baseUrl()}/downloads/${p}`)).arrayBuffer()),
        ),
      );
      expect(inRepo!.length).toBeGreaterThan(1_000_000);
      expect(inRepo!.equals(plain!)).toBe(true);
    }
    const repomd = await fetch(`${baseUrl()}/downloads/yum/repodata/repomd.xml`);
    expect(repomd.status).toBe(200);
    expect(await repomd.text()).toContain('<data type="primary">');
    const signature = await fetch(`${baseUrl()}/downloads/yum/repodata/repomd.xml.asc`);
    expect(await signature.text()).toMatch(/^-----BEGIN PGP SIGNATURE-----/);
    for (const name of [
      'apt/dists/unstable/InRelease',
      'yum/repodata',
      'apt/.hidden',
      'apt/..%2frelease.json',
    ]) {
      const res = await api('GET', `/downloads/${name}`);
      expect({ name, status: res.status, code: res.body.code }).toEqual({
        name,
        status: 404,
        code: 'NOT_FOUND',
      });
    }
  });

  it('serves nothing that SHA256SUMS does not list', async () => {
    for (const name of ['agent.json', '..%2F..%2Fpackage.json', '.coffer-build', 'coffer-agent-darwin-x64']) {
      const res = await api('GET', `/downloads/${name}`);
      expect(res.status).toBe(404);
    }
  });
});
