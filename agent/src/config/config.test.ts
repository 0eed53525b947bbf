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
import { CONFIG_ID_PATTERN } from '@coffer/contracts';
import { encodeKey, generateMasterKey } from '../crypto/key.js';
import {
  ConfigError,
  configIdFor,
  instancePathFor,
  loadConfig,
  masterKeyOf,
  restorePolicyOf,
  permissionWarning,
  resolveConfigPath,
  saveConfig,
  stateDirFor,
  statusPathFor,
  systemConfigPath,
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

describe('resolveConfigPath with a service install', () => {
  const user = '/x/coffer/agent.json';
  const env = { XDG_CONFIG_HOME: '/x' };
  const only =
    (...files: string[]) =>
    (file: string) =>
      files.includes(file);

  it("falls back to the service's config when the user has none (so `sudo coffer-agent db add` finds it)", () => {
    expect(systemConfigPath('linux')).toBe('/etc/coffer/agent.json');
    expect(resolveConfigPath(undefined, env, only('/etc/coffer/agent.json'))).toBe('/etc/coffer/agent.json');
  });

  it("prefers the user's config when it exists, and the user's path when neither does", () => {
    expect(resolveConfigPath(undefined, env, only(user, '/etc/coffer/agent.json'))).toBe(user);
    expect(resolveConfigPath(undefined, env, only())).toBe(user);
  });

  it('still lets --config and COFFER_AGENT_CONFIG win over both', () => {
    const both = only(user, '/etc/coffer/agent.json');
    expect(resolveConfigPath('/f/agent.json', { ...env, COFFER_AGENT_CONFIG: '/e.json' }, both)).toBe(
      '/f/agent.json',
    );
    expect(resolveConfigPath(undefined, { ...env, COFFER_AGENT_CONFIG: '/e.json' }, both)).toBe('/e.json');
  });

  it('puts the Windows service config under ProgramData', () => {
    expect(systemConfigPath('win32', { ProgramData: 'D:\\PD' })).toBe('D:\\PD\\Coffer\\agent.json');
    expect(systemConfigPath('win32', {})).toBe('C:\\ProgramData\\Coffer\\agent.json');
  });
});

describe('state folder', () => {
  it("is the config's stateDir when set, else the config's folder", () => {
    expect(stateDirFor('/etc/coffer/agent.json', { stateDir: '/var/lib/coffer' })).toBe('/var/lib/coffer');
    expect(statusPathFor('/etc/coffer/agent.json', { stateDir: '/var/lib/coffer' })).toBe(
      '/var/lib/coffer/agent.status.json',
    );
    expect(stateDirFor('/etc/coffer/agent.json', {})).toBe('/etc/coffer');
    expect(stateDirFor('/etc/coffer/agent.json')).toBe('/etc/coffer');
    expect(statusPathFor('/etc/coffer/agent.json', {})).toBe('/etc/coffer/agent.status.json');
    expect(stateDirFor('/etc/coffer/agent.json', { stateDir: 'rel/state' })).toBe(path.resolve('rel/state'));
  });

  it('gives the server a configuration id per file, not the path itself', () => {
    const prod = configIdFor('/srv/coffer/prod.json');
    expect(prod).toMatch(CONFIG_ID_PATTERN);
    expect(prod).not.toBe('');
    expect(configIdFor('/srv/coffer/../coffer/prod.json')).toBe(prod);
    expect(configIdFor('/srv/coffer/staging.json')).not.toBe(prod);
  });

  it('names the status and instance files after the config, so two configs in one folder never share them', () => {
    expect(statusPathFor('/srv/coffer/prod.json')).toBe('/srv/coffer/prod.status.json');
    expect(statusPathFor('/srv/coffer/staging.json')).toBe('/srv/coffer/staging.status.json');
    expect(instancePathFor('/srv/coffer/prod.json')).toBe('/srv/coffer/prod.instance-id');
    expect(instancePathFor('/srv/coffer/staging.json')).toBe('/srv/coffer/staging.instance-id');
    // The usual config keeps the names an installed agent already has.
    expect(instancePathFor('/etc/coffer/agent.json', { stateDir: '/var/lib/coffer' })).toBe(
      '/var/lib/coffer/agent.instance-id',
    );
    // Another extension, or none, is part of the name.
    expect(statusPathFor('/srv/coffer/agent.conf')).toBe('/srv/coffer/agent.conf.status.json');
    expect(statusPathFor('/srv/coffer/agent')).toBe('/srv/coffer/agent.status.json');
    expect(statusPathFor('/srv/coffer/Prod.JSON')).toBe('/srv/coffer/Prod.status.json');
    // A shared stateDir keeps them apart too.
    expect(statusPathFor('/etc/coffer/a.json', { stateDir: '/var/lib/coffer' })).not.toBe(
      statusPathFor('/etc/coffer/b.json', { stateDir: '/var/lib/coffer' }),
    );
  });

  it('round-trips stateDir through the config file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-config-'));
    try {
      const file = path.join(dir, 'agent.json');
      await saveConfig(file, { ...valid(), stateDir: '/var/lib/coffer' });
      expect(statusPathFor(file, await loadConfig(file))).toBe('/var/lib/coffer/agent.status.json');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

  it('restore policy: allowed and bound-only by default, a partial setting keeps the other default', async () => {
    expect(restorePolicyOf(valid())).toEqual({ allowed: true, requireBinding: true });
    expect(restorePolicyOf({ restores: { allowed: false } as AgentConfig['restores'] })).toEqual({
      allowed: false,
      requireBinding: true,
    });
    const file = path.join(dir, 'agent.json');
    writeFileSync(file, JSON.stringify({ ...valid(), restores: { allowed: 'yes' } }));
    await expect(loadConfig(file)).rejects.toThrow(/restores\.allowed/);
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
