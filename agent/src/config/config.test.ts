import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  chmodSync,
  mkdirSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeKey, generateMasterKey } from '../crypto/key.js';
import {
  ConfigError,
  loadConfig,
  masterKeyOf,
  permissionWarning,
  resolveConfigPath,
  saveConfig,
  statusPathFor,
  type AgentConfig,
} from './config.js';
import { checkDatabaseName } from './names.js';

const key = generateMasterKey();
const valid = (): AgentConfig => ({
  version: 1,
  server: 'https://coffer.example.com',
  apiKey: 'ak_123',
  name: 'box',
  masterKey: encodeKey(key),
  databases: [{ name: 'prod', uri: 'mongodb://u:topsecret@h:27017/shop', db: 'shop' }],
});

describe('resolveConfigPath', () => {
  it('prefers --config, then COFFER_AGENT_CONFIG, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(resolveConfigPath('rel/a.json', { COFFER_AGENT_CONFIG: '/e.json' })).toBe(
      path.resolve('rel/a.json'),
    );
    expect(resolveConfigPath(undefined, { COFFER_AGENT_CONFIG: '/e.json', XDG_CONFIG_HOME: '/x' })).toBe(
      '/e.json',
    );
    expect(resolveConfigPath(undefined, { XDG_CONFIG_HOME: '/x' })).toBe('/x/coffer/agent.json');
    expect(resolveConfigPath(undefined, { XDG_CONFIG_HOME: 'relative-is-ignored' })).toBe(
      path.join(os.homedir(), '.config/coffer/agent.json'),
    );
    expect(resolveConfigPath(undefined, {})).toBe(path.join(os.homedir(), '.config/coffer/agent.json'));
    expect(statusPathFor('/x/coffer/agent.json')).toBe('/x/coffer/agent.status.json');
  });
});

describe('config file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-config-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips, 0600 in a new 0700 directory, with no temporary file left', async () => {
    const file = path.join(dir, 'new', 'sub', 'agent.json');
    await saveConfig(file, valid());
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readdirSync(path.dirname(file))).toEqual(['agent.json']);
    const loaded = await loadConfig(file);
    expect(loaded).toEqual(valid());
    expect(masterKeyOf(loaded).equals(key)).toBe(true);
    await saveConfig(file, { ...loaded, name: 'renamed' });
    expect((await loadConfig(file)).name).toBe('renamed');
    expect(readdirSync(path.dirname(file))).toEqual(['agent.json']);
  });

  it('keeps fields it does not know (a newer daemon may add some)', async () => {
    const file = path.join(dir, 'agent.json');
    await saveConfig(file, { ...valid(), futureField: { a: 1 } } as AgentConfig);
    expect((await loadConfig(file)) as unknown as { futureField: unknown }).toMatchObject({
      futureField: { a: 1 },
    });
  });

  it('accepts http(s) servers on an IP, localhost or a one-word host, and nothing else', async () => {
    const file = path.join(dir, 'agent.json');
    for (const server of [
      'http://127.0.0.1:8080',
      'http://localhost:8080',
      'http://[::1]:8080',
      'http://nas:8080',
    ]) {
      await saveConfig(file, { ...valid(), server });
      expect((await loadConfig(file)).server).toBe(server);
    }
    await expect(saveConfig(file, { ...valid(), server: 'ftp://coffer.example.com' })).rejects.toThrow(
      ConfigError,
    );
  });

  it('does not change the mode of an existing directory', async () => {
    const shared = path.join(dir, 'shared');
    mkdirSync(shared, { mode: 0o755 });
    chmodSync(shared, 0o755);
    await saveConfig(path.join(shared, 'agent.json'), valid());
    expect(statSync(shared).mode & 0o777).toBe(0o755);
  });

  it.each<[string, string | object, RegExp]>([
    ['missing', '', /No agent config at .*Run `coffer-agent init/],
    ['not JSON', '{ nope', /is not valid JSON/],
    ['wrong version', { ...valid(), version: 2 }, /version: /],
    ['bad key', { ...valid(), masterKey: 'coffer-key-v1:short' }, /masterKey: the key is damaged/],
    ['bad server', { ...valid(), server: 'ftp://x' }, /server: /],
    [
      'bad uri',
      { ...valid(), databases: [{ name: 'prod', uri: 'postgres://u:topsecret@h/x', db: 'x' }] },
      /databases\[0\]\.uri: not a MongoDB connection string/,
    ],
    [
      'bad label',
      { ...valid(), databases: [{ name: 'has space', uri: 'mongodb://h/x', db: 'x' }] },
      /databases\[0\]\.name: database label must be/,
    ],
    [
      'bad db',
      { ...valid(), databases: [{ name: 'p', uri: 'mongodb://h/x', db: 'a.b' }] },
      /databases\[0\]\.db: the database name "a\.b" contains "\."/,
    ],
    [
      'duplicate labels',
      {
        ...valid(),
        databases: [
          { name: 'p', uri: 'mongodb://h/x', db: 'x' },
          { name: 'p', uri: 'mongodb://h/y', db: 'y' },
        ],
      },
      /duplicate database label "p"/,
    ],
  ])('explains a %s config in one line, without echoing secrets', async (_name, content, message) => {
    const file = path.join(dir, 'agent.json');
    if (content !== '') writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    const err = await loadConfig(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toMatch(/topsecret|\n/);
  });

  it('warns when others can read the config', async () => {
    const file = path.join(dir, 'agent.json');
    await saveConfig(file, valid());
    expect(await permissionWarning(file)).toBeUndefined();
    chmodSync(file, 0o644);
    expect(await permissionWarning(file)).toMatch(/accessible by other users \(mode 644\).*chmod 600/);
    expect(readFileSync(file, 'utf8')).toContain('"version": 1');
  });
});

describe('checkDatabaseName', () => {
  it('applies MongoDB naming rules', () => {
    expect(checkDatabaseName('shop')).toBeUndefined();
    expect(checkDatabaseName('-rf')).toBeUndefined();
    expect(checkDatabaseName('ünïcode')).toBeUndefined();
    expect(checkDatabaseName('a b')).toMatch(/contains a space/);
    expect(checkDatabaseName('a$b')).toMatch(/contains "\$"/);
    expect(checkDatabaseName('')).toMatch(/empty/);
  });
});
