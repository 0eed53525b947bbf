import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, chmodSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PipelineError } from './errors.js';
import {
  escapeNsPattern,
  bundledToolsDir,
  findTool,
  mongodumpArgs,
  mongorestoreArgs,
  restoreNamespaceArgs,
  toolConfigYaml,
  withToolConfig,
} from './tools.js';

// Names a user or an attacker-controlled label might produce. MongoDB refuses the ones with
// space, quote, $, dot, slash, backslash or NUL; the builders must refuse them too, and pass the
// rest as single, literal argv elements.
const ACCEPTED = [
  'shop',
  '-rf',
  '--drop',
  '-',
  "o'brien",
  'ünïcode',
  'データ',
  'a*b',
  'semi;colon',
  'back`tick`',
  'pipe|amp&',
  '(paren)',
  '#hash',
  'x'.repeat(63),
];
const REFUSED = [
  'with space',
  'dq"uote',
  'dollar$',
  '$where',
  'dot.name',
  'sl/ash',
  'back\\slash',
  'nul\0',
  '',
  'x'.repeat(64),
  'é'.repeat(32),
];

describe('mongodump arguments', () => {
  it.each(ACCEPTED)('passes %j as one literal --db=value element', (db) => {
    const args = mongodumpArgs({ configFile: '/tmp/c/tool.yaml', db });
    // one element, in --opt=value form: nothing in the name can become a separate option
    expect(args).toEqual(['--config=/tmp/c/tool.yaml', '--archive', `--db=${db}`]);
  });

  it.each(REFUSED)('refuses %j before anything runs', (db) => {
    expect(() => mongodumpArgs({ configFile: 'c', db })).toThrow(PipelineError);
    try {
      mongodumpArgs({ configFile: 'c', db });
    } catch (e) {
      expect((e as PipelineError).code).toBe('INVALID_NAME');
      expect((e as Error).message).toMatch(/database name/);
    }
  });

  it('never puts the connection string on the command line', () => {
    const args = mongodumpArgs({ configFile: '/x/tool.yaml', db: 'shop' });
    expect(args.join(' ')).not.toMatch(/mongodb:|--uri|--password|-p\b/);
  });
});

describe('mongorestore arguments', () => {
  it('drops and renames from the dumped database to the target', () => {
    expect(mongorestoreArgs({ configFile: '/c.yaml', fromDb: 'shop', toDb: 'shop_copy' })).toEqual([
      '--config=/c.yaml',
      '--archive',
      '--drop',
      '--nsFrom=shop.*',
      '--nsTo=shop_copy.*',
    ]);
  });

  it.each(ACCEPTED)('escapes %j for mongorestore namespace patterns', (db) => {
    const args = mongorestoreArgs({ configFile: 'c', fromDb: db, toDb: db });
    expect(args).toContain(`--nsFrom=${escapeNsPattern(db)}.*`);
    expect(args).toHaveLength(5);
  });

  it('escapes wildcards and backslashes exactly as mongorestore unescapes them', () => {
    expect(escapeNsPattern('a*b')).toBe('a\\*b');
    expect(escapeNsPattern('a\\b')).toBe('a\\\\b');
    expect(escapeNsPattern("o'brien")).toBe("o'brien");
  });

  it.each(REFUSED)('refuses %j as source or target', (db) => {
    expect(() => mongorestoreArgs({ configFile: 'c', fromDb: 'ok', toDb: db })).toThrow(PipelineError);
    expect(() => mongorestoreArgs({ configFile: 'c', fromDb: db, toDb: 'ok' })).toThrow(PipelineError);
  });
});

describe('restore namespace arguments (chosen collections, another database)', () => {
  it('includes each chosen collection by its name in the dumped database, then renames', () => {
    expect(
      restoreNamespaceArgs({ fromDb: 'shop', toDb: 'shop_copy', collections: ['customers', 'dots.in.name'] }),
    ).toEqual([
      '--nsInclude=shop.customers',
      '--nsInclude=shop.dots.in.name',
      '--nsFrom=shop.*',
      '--nsTo=shop_copy.*',
    ]);
  });

  it('restores everything when no collection is chosen', () => {
    expect(restoreNamespaceArgs({ fromDb: 'a', toDb: 'b' })).toEqual(['--nsFrom=a.*', '--nsTo=b.*']);
    expect(restoreNamespaceArgs({ fromDb: 'a', toDb: 'b', collections: [] })).toEqual([
      '--nsFrom=a.*',
      '--nsTo=b.*',
    ]);
  });

  it('keeps hostile collection names one literal argument each: wildcards and backslashes escaped', () => {
    const args = restoreNamespaceArgs({
      fromDb: 'shop',
      toDb: 'shop',
      collections: ['a*', 'b\\c', 'with space', '--drop', "o'brien; rm -rf /", 'ünïcode'],
    });
    expect(args.slice(0, 6)).toEqual([
      '--nsInclude=shop.a\\*',
      '--nsInclude=shop.b\\\\c',
      '--nsInclude=shop.with space',
      '--nsInclude=shop.--drop',
      "--nsInclude=shop.o'brien; rm -rf /",
      '--nsInclude=shop.ünïcode',
    ]);
  });

  it.each(['', 'a$b', 'nul\0', 'system.users', 'x'.repeat(301)])('refuses the collection name %j', (c) => {
    expect(() => restoreNamespaceArgs({ fromDb: 'a', toDb: 'b', collections: [c] })).toThrow(PipelineError);
    expect(() => mongorestoreArgs({ configFile: 'c', fromDb: 'a', toDb: 'b', collections: [c] })).toThrow(
      /is not a collection name/,
    );
  });

  it('puts the namespace arguments after the archive options', () => {
    expect(mongorestoreArgs({ configFile: 'c', fromDb: 'a', toDb: 'b', collections: ['x'] })).toEqual([
      '--config=c',
      '--archive',
      '--drop',
      '--nsInclude=a.x',
      '--nsFrom=a.*',
      '--nsTo=b.*',
    ]);
  });
});

describe('tool config file', () => {
  it('holds only the URI, JSON-quoted, without a path database', () => {
    const yaml = toolConfigYaml('mongodb://us"er:p\\a\nss@h:1/shop');
    expect(yaml).toBe('uri: "mongodb://us\\"er:p\\\\a\\nss@h:1/?authSource=shop"\n');
  });

  it('lives in a private directory for exactly the duration of the call', async () => {
    let seen = '';
    await withToolConfig('mongodb://u:pw@h/db', async (file) => {
      seen = file;
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      expect(readFileSync(file, 'utf8')).toContain('u:pw@h');
    });
    expect(() => statSync(path.dirname(seen))).toThrow();
  });

  it('is removed when the tool run fails', async () => {
    let seen = '';
    await expect(
      withToolConfig('mongodb://h/db', async (file) => {
        seen = file;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(() => statSync(path.dirname(seen))).toThrow();
  });
});

describe('findTool', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'coffer-tools-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds an executable on PATH', async () => {
    writeFileSync(path.join(dir, 'mongodump'), '#!/bin/sh\n');
    chmodSync(path.join(dir, 'mongodump'), 0o755);
    expect(await findTool('mongodump', { PATH: `/nonexistent${path.delimiter}${dir}` })).toBe(
      path.join(dir, 'mongodump'),
    );
  });

  it('says how to install the Database Tools when missing', async () => {
    expect(readdirSync(dir)).not.toContain('mongorestore');
    await expect(findTool('mongorestore', { PATH: dir })).rejects.toMatchObject({
      code: 'TOOL_MISSING',
      message: expect.stringMatching(
        /mongorestore was not found on PATH\. The agent from your Coffer server brings its own.*Or install the MongoDB Database Tools/,
      ),
    });
  });

  it("prefers the tools that came with the agent to those on PATH, and the host's configured ones to both", async () => {
    const bundled = mkdtempSync(path.join(tmpdir(), 'coffer-bundled-'));
    const own = mkdtempSync(path.join(tmpdir(), 'coffer-own-'));
    try {
      for (const d of [bundled, own]) {
        writeFileSync(path.join(d, 'mongodump'), '#!/bin/sh\n');
        chmodSync(path.join(d, 'mongodump'), 0o755);
      }
      expect(await findTool('mongodump', { PATH: dir }, bundled)).toBe(path.join(bundled, 'mongodump'));
      expect(await findTool('mongodump', { PATH: dir, COFFER_TOOLS_DIR: own }, bundled)).toBe(
        path.join(own, 'mongodump'),
      );
      // Not bundled here: found on PATH.
      expect(await findTool('mongodump', { PATH: dir }, path.join(bundled, 'missing'))).toBe(
        path.join(dir, 'mongodump'),
      );
      await expect(findTool('mongorestore', { PATH: dir }, bundled)).rejects.toMatchObject({
        message: expect.stringMatching(new RegExp(`^mongorestore was not found in ${bundled} or on PATH`)),
      });
    } finally {
      rmSync(bundled, { recursive: true, force: true });
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe('bundledToolsDir', () => {
  it('is lib/coffer/tools beside the bin folder on Linux, tools\\ beside the exe on Windows', () => {
    expect(bundledToolsDir('/usr/local/bin/coffer-agent', 'linux', true)).toBe('/usr/local/lib/coffer/tools');
    expect(bundledToolsDir('/usr/bin/coffer-agent', 'linux', true)).toBe('/usr/lib/coffer/tools');
    expect(bundledToolsDir('C:\\Program Files\\Coffer\\coffer-agent.exe', 'win32', true)).toBe(
      'C:\\Program Files\\Coffer\\tools',
    );
  });

  it('is none for the agent run by Node.js from the repository', () => {
    expect(bundledToolsDir('/usr/bin/node', 'linux', false)).toBeUndefined();
  });
});
