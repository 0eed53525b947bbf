import { LIMITS } from '../limits.js';
import {
  agentHandshakeSchema,
  agentRegistrationSchema,
  registrationOf,
  type AgentHandshake,
} from './handshake.js';

/** What `coffer-agent run` sends. */
const real: AgentHandshake = {
  apiKey: 'cof_3q2-7wEvr6FhHf4hHj1zWxQ0aL9mN8bVc5xZ2sD4fG6',
  instanceId: 'f2d3c4b5-a697-4881-9a0b-1c2d3e4f5a6b',
  name: 'db-box',
  hostname: 'db-box.internal',
  configId: '9f86d081884c7d659a2feaa0c55ad015',
  platform: 'linux-x64',
  version: '0.2.0',
  databases: ['shop', 'big-db', 'shop.prod'],
  keyFingerprint: '5f2c8e1a9b3d4c6e7f8091a2b3c4d5e6',
};
const ok = (over: Partial<Record<keyof AgentHandshake, unknown>>) =>
  agentHandshakeSchema.safeParse({ ...real, ...over }).success;

describe('agent handshake', () => {
  it('accepts what the agent sends, and fills in what an older agent leaves out', () => {
    expect(agentHandshakeSchema.parse(real)).toEqual(real);
    expect(
      agentHandshakeSchema.parse({ apiKey: real.apiKey, instanceId: real.instanceId, name: 'x' }),
    ).toEqual({
      apiKey: real.apiKey,
      instanceId: real.instanceId,
      name: 'x',
      hostname: '',
      configId: '',
      platform: '',
      version: '',
      databases: [],
      keyFingerprint: '',
    });
  });

  it('takes a key fingerprint only in its own shape (never anything that could be a key)', () => {
    expect(ok({ keyFingerprint: 'k'.repeat(LIMITS.keyFingerprint) })).toBe(true);
    expect(ok({ keyFingerprint: 'k'.repeat(LIMITS.keyFingerprint + 1) })).toBe(false);
    expect(ok({ keyFingerprint: 'coffer-key-v1:abc+/=' })).toBe(false);
    expect(ok({ keyFingerprint: 7 })).toBe(false);
  });

  it.each([
    ['apiKey', '', 'x'.repeat(LIMITS.apiKey), 'x'.repeat(LIMITS.apiKey + 1)],
    ['name', '  ', 'n'.repeat(LIMITS.agentName), 'n'.repeat(LIMITS.agentName + 1)],
    ['hostname', 7, 'h'.repeat(LIMITS.hostname), 'h'.repeat(LIMITS.hostname + 1)],
    ['platform', null, 'p'.repeat(LIMITS.platform), 'p'.repeat(LIMITS.platform + 1)],
    ['version', 1.2, 'v'.repeat(LIMITS.version), 'v'.repeat(LIMITS.version + 1)],
    ['instanceId', 'short', 'i'.repeat(LIMITS.instanceId.max), 'i'.repeat(LIMITS.instanceId.max + 1)],
  ])(
    '%s: takes the longest allowed, refuses a bad one and one over the limit',
    (field, bad, longest, over) => {
      expect(ok({ [field]: longest })).toBe(true);
      expect(ok({ [field]: bad })).toBe(false);
      expect(ok({ [field]: over })).toBe(false);
    },
  );

  it('hostname, platform, version: control and text-direction characters are stripped', () => {
    const parsed = agentHandshakeSchema.parse({
      ...real,
      hostname: 'db\u0000-box\u001b[2J\u202Eexe.txt',
      platform: 'linux\u0007-x64\u2066',
      version: '0.2.0\u001b[31m\u0085',
    });
    expect(parsed).toMatchObject({
      hostname: 'db-box[2Jexe.txt',
      platform: 'linux-x64',
      version: '0.2.0[31m',
    });
  });

  it('version: no whitespace once stripped (versions travel in NATS headers)', () => {
    expect(ok({ version: '1.0 beta' })).toBe(false);
    expect(ok({ version: '1.0\u00a0beta' })).toBe(false);
    expect(agentHandshakeSchema.parse({ ...real, version: '1.0.0\n' }).version).toBe('1.0.0');
  });

  it('the registration is the handshake without its key, and parsing it again changes nothing', () => {
    const registration = registrationOf(agentHandshakeSchema.parse(real));
    expect(registration).not.toHaveProperty('apiKey');
    expect(agentRegistrationSchema.parse(registration)).toEqual(registration);
    const oldAgent = registrationOf(
      agentHandshakeSchema.parse({ apiKey: 'k', instanceId: real.instanceId, name: 'x' }),
    );
    expect(agentRegistrationSchema.parse(oldAgent)).toEqual(oldAgent);
  });

  it('configId: a hex hash of 16 to 64 digits, or nothing', () => {
    for (const good of ['', 'a'.repeat(16), '0123456789abcdef'.repeat(4)])
      expect(ok({ configId: good })).toBe(true);
    for (const bad of ['a'.repeat(15), 'a'.repeat(65), 'G'.repeat(32), '/etc/coffer/agent.json', 5])
      expect(ok({ configId: bad })).toBe(false);
  });

  it('databases: labels only, at most one agent’s worth', () => {
    const many = Array.from({ length: LIMITS.databasesPerAgent }, (_, i) => `db-${i}`);
    expect(ok({ databases: many })).toBe(true);
    expect(ok({ databases: [...many, 'one-more'] })).toBe(false);
    expect(ok({ databases: ['has space'] })).toBe(false);
    expect(ok({ databases: ['d'.repeat(LIMITS.databaseLabel + 1)] })).toBe(false);
  });
});
