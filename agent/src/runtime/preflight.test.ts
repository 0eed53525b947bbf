import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { INSTALL_HINT } from '../pipeline/tools.js';
import { checkTool, checkZstd, preflight, PreflightError } from './preflight.js';

describe('checkZstd', () => {
  it('passes with the zlib of this Node.js (24)', () => {
    expect(() => checkZstd()).not.toThrow();
    expect(() => checkZstd(zlib, process.version)).not.toThrow();
  });

  it.each<[string, Partial<typeof zlib>]>([
    ['no zstd at all', { createGzip: zlib.createGzip }],
    ['only the compressor', { createZstdCompress: zlib.createZstdCompress }],
    ['only the decompressor', { createZstdDecompress: zlib.createZstdDecompress }],
  ])('refuses a Node.js with %s, naming it and pointing to the binary', (_name, z) => {
    let err: unknown;
    try {
      checkZstd(z, 'v20.11.1');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PreflightError);
    const message = (err as Error).message;
    expect(message).toContain('this Node.js (v20.11.1) has no zstd in node:zlib');
    expect(message).toContain('single-file coffer-agent binary from your Coffer server');
    expect(message).toContain('Node.js 24 or newer');
  });
});

describe('checkTool', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-preflight-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const script = (name: string, body: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  };

  it('finds the tool in COFFER_TOOLS_DIR, even with an empty PATH, and reports its version line', async () => {
    const file = script('mongodump', 'echo\necho "mongodump version: 100.9.9"\necho "git version: abc"');
    expect(await checkTool('mongodump', { COFFER_TOOLS_DIR: dir, PATH: '' })).toEqual({
      name: 'mongodump',
      path: file,
      version: 'mongodump version: 100.9.9',
    });
  });

  it('finds the tool on PATH', async () => {
    const file = script('mongorestore', 'echo "mongorestore version: 100.9.9"');
    expect(await checkTool('mongorestore', { PATH: `/nonexistent${path.delimiter}${dir}` })).toMatchObject({
      path: file,
      version: 'mongorestore version: 100.9.9',
    });
  });

  it('says a missing tool was not found and how to install it', async () => {
    const err = await checkTool('mongodump', { COFFER_TOOLS_DIR: dir, PATH: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PreflightError);
    expect((err as Error).message).toBe(`mongodump was not found in ${dir} or on PATH. ${INSTALL_HINT}`);
  });

  it('says a tool that is there but fails does not run', async () => {
    const file = script('mongodump', 'echo broken >&2\nexit 1');
    const err = await checkTool('mongodump', { COFFER_TOOLS_DIR: dir, PATH: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PreflightError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not run \\(.+\\); reinstall the MongoDB Database Tools$`,
      ),
    );
    expect((err as Error).message).not.toContain('\n');
  });

  it('preflight checks both tools and stops at the first missing one', async () => {
    script('mongodump', 'echo "mongodump version: 100.9.9"');
    await expect(preflight({ COFFER_TOOLS_DIR: dir, PATH: '' })).rejects.toThrow(
      /^mongorestore was not found/,
    );
    script('mongorestore', 'echo "mongorestore version: 100.9.8"');
    expect((await preflight({ COFFER_TOOLS_DIR: dir, PATH: '' })).map((t) => t.version)).toEqual([
      'mongodump version: 100.9.9',
      'mongorestore version: 100.9.8',
    ]);
  });
});
