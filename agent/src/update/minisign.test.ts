// The signature format against the real `minisign` tool (Debian's package; deploy/local/bootstrap.sh
// installs it): what this module signs, minisign verifies, and the other way round.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  generateKeyPair,
  keyIdText,
  parsePublicKey,
  parsePublicKeys,
  signMessage,
  SignatureError,
  verifyMessage,
} from './minisign.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-minisign-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const problemOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof SignatureError) return { problem: e.problem, message: e.message };
    throw e;
  }
  return undefined;
};

describe('signMessage / verifyMessage', () => {
  const { key } = generateKeyPair();
  const message = randomBytes(1000);
  const signature = signMessage(message, key, 'timestamp:1\tfile:SHA256SUMS');

  it('verifies its own signature and returns the key and the trusted comment', () => {
    const other = generateKeyPair().key.public;
    const r = verifyMessage(message, signature, [other, key.public]);
    expect(r.key.text).toBe(key.public.text);
    expect(r.trustedComment).toBe('timestamp:1\tfile:SHA256SUMS');
  });

  it('refuses other bytes, a changed trusted comment, an unknown key and a legacy signature', () => {
    const changed = Buffer.from(message);
    changed[0]! ^= 1;
    expect(problemOf(() => verifyMessage(changed, signature, [key.public], 'SHA256SUMS'))).toEqual({
      problem: 'bad-signature',
      message: `the signature of SHA256SUMS does not verify with the release key ${keyIdText(key.id)}: the file was changed after it was signed`,
    });
    const lines = signature.split('\n');
    lines[2] = 'trusted comment: timestamp:2\tfile:SHA256SUMS';
    expect(problemOf(() => verifyMessage(message, lines.join('\n'), [key.public]))?.problem).toBe(
      'bad-signature',
    );
    const stranger = generateKeyPair().key.public;
    expect(problemOf(() => verifyMessage(message, signature, [stranger], 'SHA256SUMS'))?.message).toBe(
      `SHA256SUMS is signed by the key ${keyIdText(key.id)}, which this agent does not trust (it trusts ${keyIdText(stranger.id)})`,
    );
    const legacy = Buffer.from(signature.split('\n')[1]!, 'base64');
    legacy.write('Ed', 0);
    lines[2] = signature.split('\n')[2]!;
    lines[1] = legacy.toString('base64');
    expect(problemOf(() => verifyMessage(message, lines.join('\n'), [key.public]))?.problem).toBe(
      'malformed',
    );
    expect(problemOf(() => verifyMessage(message, 'not a signature', [key.public]))?.problem).toBe(
      'malformed',
    );
  });

  it('reads public keys as minisign writes them and refuses anything else', () => {
    const { publicFile } = generateKeyPair();
    const parsed = parsePublicKey(publicFile);
    expect(publicFile).toBe(
      `untrusted comment: minisign public key ${keyIdText(parsed.id)}\n${parsed.text}\n`,
    );
    expect(parsePublicKeys(`${parsed.text}, ${key.public.text}\n`).map((k) => k.text)).toEqual([
      parsed.text,
      key.public.text,
    ]);
    expect(() => parsePublicKey('RWQ-not-base64')).toThrow(/not a minisign Ed25519 public key/);
    expect(() => parsePublicKey(Buffer.alloc(42).toString('base64'))).toThrow(/not a minisign/);
  });
});

describe('compatibility with the minisign tool', () => {
  const minisign = (...args: string[]) => spawnSync('minisign', args, { encoding: 'utf8', input: '' });

  beforeAll(() => {
    if (minisign('-v').error)
      throw new Error('minisign is not installed: run deploy/local/bootstrap.sh (apt-get install minisign)');
  });

  it('minisign verifies what this module signs, and refuses it over other bytes', () => {
    const { key, publicFile } = generateKeyPair();
    const file = path.join(dir, 'SHA256SUMS');
    writeFileSync(file, `${'ab'.repeat(32)}  coffer-agent-linux-x64\n`);
    writeFileSync(`${file}.minisig`, signMessage(readFileSync(file), key, 'timestamp:1\tfile:SHA256SUMS'));
    writeFileSync(path.join(dir, 'key.pub'), publicFile);
    const ok = minisign('-V', '-p', path.join(dir, 'key.pub'), '-m', file);
    expect({ code: ok.status, out: ok.stdout }).toEqual({
      code: 0,
      out: 'Signature and comment signature verified\nTrusted comment: timestamp:1\tfile:SHA256SUMS\n',
    });
    // the same with the key given on the command line, as COFFER_RELEASE_PUBLIC_KEYS holds it
    expect(minisign('-V', '-P', key.public.text, '-m', file).status).toBe(0);
    writeFileSync(file, `${'cd'.repeat(32)}  coffer-agent-linux-x64\n`);
    const bad = minisign('-V', '-p', path.join(dir, 'key.pub'), '-m', file);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/Signature verification failed/);
  });

  it('this module verifies what minisign signs with a key it made, and refuses it over other bytes', () => {
    const pub = path.join(dir, 'minisign.pub');
    const sec = path.join(dir, 'minisign.key');
    execFileSync('minisign', ['-G', '-W', '-p', pub, '-s', sec], { stdio: 'pipe' });
    const file = path.join(dir, 'SHA256SUMS');
    const content = Buffer.from(`${'ef'.repeat(32)}  install.sh\n`);
    writeFileSync(file, content);
    execFileSync('minisign', ['-S', '-s', sec, '-m', file, '-t', 'coffer-agent 9.9.9'], { stdio: 'pipe' });
    const key = parsePublicKey(readFileSync(pub, 'utf8'));
    const signature = readFileSync(`${file}.minisig`, 'utf8');
    expect(verifyMessage(content, signature, [key]).trustedComment).toBe('coffer-agent 9.9.9');
    expect(
      problemOf(() => verifyMessage(Buffer.concat([content, Buffer.from('x')]), signature, [key]))?.problem,
    ).toBe('bad-signature');
  });
});
