import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { z } from 'zod';
import { CALLING_SERVICES, callersOf, isServiceName, type ServiceName } from './callers.js';

/**
 * Who this process is on gRPC: its name, the Ed25519 key it signs its calls with (services that
 * only answer have none) and the public keys of the services whose calls it can verify.
 */
export interface ServiceIdentity {
  name: ServiceName;
  privateKey?: KeyObject;
  /** A service's keys: two while its key is being rotated (docs/operations.md, "Service keys"). */
  publicKeys: ReadonlyMap<ServiceName, readonly KeyObject[]>;
}

// Keys travel as one line (a .env value, a Secret key): the base64 of the DER, i.e. a PEM's body.
// A whole PEM is taken too (a mounted key file).
const PEM_ARMOUR = /-----(BEGIN|END) [A-Z ]+-----/g;
const der = (text: string) => Buffer.from(text.replace(PEM_ARMOUR, '').replace(/\s+/g, ''), 'base64');

function ed25519(make: () => KeyObject, what: string): KeyObject {
  let key: KeyObject;
  try {
    key = make();
  } catch {
    throw new Error(`${what} is not a key (expected a PEM, or its base64 body on one line)`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${what} is not an Ed25519 key`);
  return key;
}

export const parsePrivateKey = (text: string, what = 'the private key') =>
  ed25519(() => createPrivateKey({ key: der(text), format: 'der', type: 'pkcs8' }), what);

export const parsePublicKey = (text: string, what = 'the public key') =>
  ed25519(() => createPublicKey({ key: der(text), format: 'der', type: 'spki' }), what);

/** `gateway=MCowBQ…,auth=MCowBQ…` (commas or whitespace between entries) → name → keys. */
export function parsePublicKeys(text: string): Map<ServiceName, KeyObject[]> {
  const keys = new Map<ServiceName, KeyObject[]>();
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, Math.max(eq, 0));
    if (!isServiceName(name)) throw new Error(`'${name || entry.slice(0, 20)}' is not a Coffer service name`);
    keys.set(name, [...(keys.get(name) ?? []), parsePublicKey(entry.slice(eq + 1), `the key of ${name}`)]);
  }
  return keys;
}

/** A zod setting parsed by `parse`, its error becoming the setting's message. */
const keySetting = <T>(parse: (text: string) => T) =>
  z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .transform((text, ctx) => {
        try {
          return parse(text);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
          return z.NEVER;
        }
      })
      .optional(),
  );

/** The settings of a service's identity; part of every service's environment (baseEnv). */
export const serviceKeyEnv = {
  /** This service's Ed25519 private key (PKCS#8), PEM or its base64 body on one line. */
  SERVICE_PRIVATE_KEY: keySetting((t) => parsePrivateKey(t, 'SERVICE_PRIVATE_KEY')),
  /** ... or the file holding it (a mounted Secret, the local run's data folder). */
  SERVICE_PRIVATE_KEY_FILE: keySetting((file) => {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    return parsePrivateKey(text, file);
  }),
  /** The public keys of the calling services, `name=<base64 SPKI>` separated by commas. */
  SERVICE_PUBLIC_KEYS: keySetting(parsePublicKeys),
};

export type ServiceKeyConfig = {
  NODE_ENV: string;
  SERVICE_PRIVATE_KEY?: KeyObject;
  SERVICE_PRIVATE_KEY_FILE?: KeyObject;
  SERVICE_PUBLIC_KEYS?: Map<ServiceName, KeyObject[]>;
};

const sameKey = (a: KeyObject, b: KeyObject) =>
  a.export({ format: 'der', type: 'spki' }).equals(b.export({ format: 'der', type: 'spki' }));

/**
 * What is wrong with a service's key settings. Anywhere: both forms of the private key at once, or
 * a private key that does not match the public key listed under the service's own name. In
 * production also a missing key: the private key of a service that calls others, the public key
 * of a caller the service accepts (every call from it would be refused).
 */
export function serviceKeyProblems(name: string, c: ServiceKeyConfig): string[] {
  if (!isServiceName(name)) return [];
  const problems: string[] = [];
  if (c.SERVICE_PRIVATE_KEY && c.SERVICE_PRIVATE_KEY_FILE)
    problems.push('SERVICE_PRIVATE_KEY and SERVICE_PRIVATE_KEY_FILE: set one of them, not both');
  const own = c.SERVICE_PRIVATE_KEY ?? c.SERVICE_PRIVATE_KEY_FILE;
  const listed = c.SERVICE_PUBLIC_KEYS?.get(name);
  if (own && listed && !listed.some((key) => sameKey(createPublicKey(own), key)))
    problems.push(`the private key does not match a key SERVICE_PUBLIC_KEYS lists for ${name}`);
  if (c.NODE_ENV !== 'production') return problems;
  if (!own && CALLING_SERVICES.includes(name))
    problems.push(
      `SERVICE_PRIVATE_KEY (or SERVICE_PRIVATE_KEY_FILE) is required: ${name} signs its calls with it`,
    );
  const missing = callersOf(name).filter((caller) => !c.SERVICE_PUBLIC_KEYS?.has(caller));
  if (missing.length)
    problems.push(
      `SERVICE_PUBLIC_KEYS lacks the key of ${missing.join(', ')}: ${name} would refuse every call from it`,
    );
  return problems;
}

/** The identity of service `name` from its validated settings. */
export function serviceIdentity(name: ServiceName, c: ServiceKeyConfig): ServiceIdentity {
  const privateKey = c.SERVICE_PRIVATE_KEY ?? c.SERVICE_PRIVATE_KEY_FILE;
  return { name, ...(privateKey ? { privateKey } : {}), publicKeys: c.SERVICE_PUBLIC_KEYS ?? new Map() };
}

/** What a start-up outside production should warn about: the calls that will be refused. */
export function identityWarnings(id: ServiceIdentity): string[] {
  const warnings: string[] = [];
  if (!id.privateKey && CALLING_SERVICES.includes(id.name))
    warnings.push('no SERVICE_PRIVATE_KEY: the services this one calls will refuse its calls');
  const missing = callersOf(id.name).filter((caller) => !id.publicKeys.has(caller));
  if (missing.length)
    warnings.push(`no public key of ${missing.join(', ')} in SERVICE_PUBLIC_KEYS: its calls will be refused`);
  return warnings;
}

/** Identities of the given services that know each other's public keys (tests, the local run). */
export function serviceIdentities<N extends ServiceName>(names: readonly N[]): Record<N, ServiceIdentity> {
  const pairs = names.map((name) => [name, generateKeyPairSync('ed25519')] as const);
  const publicKeys = new Map(pairs.map(([name, p]) => [name as ServiceName, [p.publicKey]]));
  return Object.fromEntries(
    pairs.map(([name, p]) => [name, { name, privateKey: p.privateKey, publicKeys }]),
  ) as unknown as Record<N, ServiceIdentity>;
}

/** The environment that gives a service process `identity` (tests that start one). */
export function identityEnv(identity: ServiceIdentity): Record<string, string> {
  const line = (der: Buffer) => der.toString('base64');
  return {
    ...(identity.privateKey
      ? { SERVICE_PRIVATE_KEY: line(identity.privateKey.export({ format: 'der', type: 'pkcs8' })) }
      : {}),
    SERVICE_PUBLIC_KEYS: [...identity.publicKeys]
      .flatMap(([name, keys]) =>
        keys.map((k) => `${name}=${line(k.export({ format: 'der', type: 'spki' }))}`),
      )
      .join(','),
  };
}
