import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { baseEnv } from '../config';
import { identityEnv, serviceIdentities, serviceIdentity, serviceKeyProblems } from './service-keys';

// The keys are settings like any other: parsed and checked at start-up, with a readable message.
const schema = z.object(baseEnv);
const ids = serviceIdentities(['gateway', 'auth', 'notification', 'backup-orchestrator', 'kb']);
const publicKeys = identityEnv(ids.gateway).SERVICE_PUBLIC_KEYS!;

describe('service key settings', () => {
  it('take a private key as one base64 line, a PEM or a file, and the public keys by name', () => {
    const line = identityEnv(ids.auth).SERVICE_PRIVATE_KEY!;
    const pem = `-----BEGIN PRIVATE KEY-----\n${line}\n-----END PRIVATE KEY-----\n`;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-keys-')), 'auth.key');
    fs.writeFileSync(file, pem, { mode: 0o600 });
    for (const env of [
      { SERVICE_PRIVATE_KEY: line },
      { SERVICE_PRIVATE_KEY: pem },
      { SERVICE_PRIVATE_KEY_FILE: file },
    ]) {
      const config = schema.parse({ ...env, SERVICE_PUBLIC_KEYS: publicKeys });
      const id = serviceIdentity('auth', config);
      expect(id.privateKey?.equals(ids.auth.privateKey!)).toBe(true);
      expect([...id.publicKeys.keys()]).toEqual([
        'gateway',
        'auth',
        'notification',
        'backup-orchestrator',
        'kb',
      ]);
      expect(serviceKeyProblems('auth', { ...config, NODE_ENV: 'production' })).toEqual([]);
    }
  });

  it.each([
    [{ SERVICE_PRIVATE_KEY: 'bm90IGEga2V5' }, 'SERVICE_PRIVATE_KEY is not a key'],
    [{ SERVICE_PRIVATE_KEY_FILE: '/nonexistent/auth.key' }, 'cannot read /nonexistent/auth.key: ENOENT'],
    [{ SERVICE_PUBLIC_KEYS: 'mallory=MCowBQYDK2VwAyEA' }, "'mallory' is not a Coffer service name"],
    [{ SERVICE_PUBLIC_KEYS: 'gateway=MCowBQYDK2VwAyEA' }, 'the key of gateway is not a key'],
  ])('refuse %j: %s', (env, message) => {
    const parsed = schema.safeParse(env);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain(message);
  });

  it('in production, require the keys a service needs and name them', () => {
    const bare = schema.parse({ NODE_ENV: 'production' });
    expect(serviceKeyProblems('notification', bare)).toEqual([
      'SERVICE_PRIVATE_KEY (or SERVICE_PRIVATE_KEY_FILE) is required: notification signs its calls with it',
      'SERVICE_PUBLIC_KEYS lacks the key of gateway, auth: notification would refuse every call from it',
    ]);
    // Storage calls nobody: only its callers' keys are needed.
    expect(
      serviceKeyProblems(
        'storage',
        schema.parse({ NODE_ENV: 'production', SERVICE_PUBLIC_KEYS: publicKeys }),
      ),
    ).toEqual([]);
    // Outside production the service starts, and the calls concerned are refused.
    expect(serviceKeyProblems('notification', schema.parse({}))).toEqual([]);
  });

  it("refuse a private key that is not the one listed under the service's own name", () => {
    const config = schema.parse({
      ...identityEnv(ids.notification),
      SERVICE_PRIVATE_KEY: identityEnv(ids.auth).SERVICE_PRIVATE_KEY,
    });
    expect(serviceKeyProblems('notification', config)).toEqual([
      'the private key does not match a key SERVICE_PUBLIC_KEYS lists for notification',
    ]);
  });
});
