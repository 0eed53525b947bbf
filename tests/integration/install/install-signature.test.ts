// install.sh checks the release signature before it installs anything, on a minimal Debian with no
// Node.js (openssl only): a server offering an agent whose SHA256SUMS was changed after signing,
// one signed by another key, or an unsigned one gets one line of refusal and nothing installed; the
// genuine build installs. The files come from a small server of the test's own over the built
// downloads (agent/dist/downloads), with some of them replaced.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { generateKeyPair, signMessage } from '../../../agent/src/update/minisign';
import { DebianRoot } from './debian-root';

jest.setTimeout(180_000);

const DIR = path.resolve(__dirname, '../../../agent/dist/downloads');
const NAME = 'coffer-agent-linux-x64';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let root: DebianRoot;
let server: http.Server;
let url: string;
/** Files served instead of the build's (null: not served). */
let replaced: Map<string, Buffer | null>;

beforeAll(async () => {
  if (!fs.existsSync(path.join(DIR, 'SHA256SUMS.minisig')))
    throw new Error(`${DIR} has no signed build: run \`npm run build\` first`);
  root = await DebianRoot.create();
  fs.copyFileSync(path.join(DIR, 'install.sh'), root.path('root/install.sh'));
  fs.writeFileSync(root.path('root/api-key'), 'ak_signature_test\n', { mode: 0o600 });
  const { version } = JSON.parse(fs.readFileSync(path.join(DIR, 'release.json'), 'utf8'));
  server = http.createServer((req, res) => {
    // As the gateway serves them: at /downloads/NAME and under the release's version.
    const name = (req.url ?? '').replace(new RegExp(`^/downloads/(${version.replace(/\./g, '\\.')}/)?`), '');
    const body = replaced.has(name) ? replaced.get(name) : undefined;
    if (body === null || (body === undefined && !/^[\w.-]+$/.test(name))) {
      res.writeHead(404).end();
      return;
    }
    if (body) {
      res.end(body);
      return;
    }
    fs.createReadStream(path.join(DIR, name))
      .on('error', () => res.writeHead(404).end())
      .pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
beforeEach(() => (replaced = new Map()));
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await root?.remove();
});

const install = () =>
  root.sh(`bash /root/install.sh --server ${url} --api-key-file /root/api-key --no-service`);

/** The build's SHA256SUMS with `changes` (name → new content) listed instead. */
function sumsWith(changes: Record<string, Buffer>): Buffer {
  const lines = fs.readFileSync(path.join(DIR, 'SHA256SUMS'), 'utf8').trimEnd().split('\n');
  return Buffer.from(
    lines
      .map((l) => {
        const name = l.split(/\s+/)[1]!;
        return changes[name] ? `${sha256(changes[name])}  ${name}` : l;
      })
      .join('\n') + '\n',
  );
}

/** Someone else's agent, listed in a SHA256SUMS that matches it. */
function offerOtherAgent(): Buffer {
  const other = { [NAME]: randomBytes(4096), [`${NAME}.zst`]: randomBytes(4096) };
  for (const [name, data] of Object.entries(other)) replaced.set(name, data);
  const sums = sumsWith(other);
  replaced.set('SHA256SUMS', sums);
  return sums;
}

async function expectRefused(reason: string, stderr = `coffer: refused: ${reason}; nothing was installed\n`) {
  const r = await install();
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr });
  expect(fs.existsSync(root.path('usr/local/bin/coffer-agent'))).toBe(false);
  expect(fs.existsSync(root.path('usr/local/lib/coffer'))).toBe(false);
  expect(fs.existsSync(root.path('etc/coffer'))).toBe(false);
  expect(fs.readFileSync(root.path('etc/passwd'), 'utf8')).not.toMatch(/^coffer:/m);
}

describe('install.sh and the release signature', () => {
  it('refuses a SHA256SUMS changed after it was signed (another agent, its hashes, the genuine signature)', async () => {
    offerOtherAgent();
    await expectRefused(
      'the signature of SHA256SUMS does not verify (the release was changed after it was signed)',
    );
  });

  it('refuses a release signed by a key it does not carry', async () => {
    const sums = offerOtherAgent();
    replaced.set(
      'SHA256SUMS.minisig',
      Buffer.from(signMessage(sums, generateKeyPair().key, 'file:SHA256SUMS')),
    );
    await expectRefused('SHA256SUMS is signed by a key this installer does not trust');
  });

  it('refuses an unsigned release', async () => {
    replaced.set('SHA256SUMS.minisig', null);
    await expectRefused("the server's release is not signed (no SHA256SUMS.minisig)");
  });

  it('refuses a bundled Database Tool that is not the one the signed SHA256SUMS lists', async () => {
    replaced.set('mongodump-linux-x64.zst', randomBytes(4096));
    await expectRefused(
      '',
      'coffer: mongodump-linux-x64.zst does not match its SHA-256 in the signed SHA256SUMS; nothing was installed\n',
    );
  });

  it('installs the genuine, signed build', async () => {
    const r = await install();
    expect(r.stderr).not.toMatch(/refused/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /installed \/usr\/local\/bin\/coffer-agent: coffer-agent \d+\.\d+\.\d+ \(linux-x64/,
    );
    expect(sha256(fs.readFileSync(root.path('usr/local/bin/coffer-agent')))).toBe(
      sha256(fs.readFileSync(path.join(DIR, NAME))),
    );
    expect(sha256(fs.readFileSync(root.path('usr/local/lib/coffer/tools/mongorestore')))).toBe(
      sha256(fs.readFileSync(path.join(DIR, 'mongorestore-linux-x64'))),
    );
  });
});
