import fs from 'node:fs';
import type { ConnectionOptions } from '@nats-io/transport-node';
import { credsAuthenticator, nkeyAuthenticator } from '@nats-io/nats-core';

/** How a service proves who it is to NATS (NATS_USER/NATS_PASSWORD, NATS_CREDS or NATS_NKEY_SEED). */
export interface NatsCredentials {
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  /** Path of a `.creds` file (a user JWT and its nkey seed, decentralised auth). */
  NATS_CREDS?: string;
  /** An nkey user's seed (`SU...`), for servers that list nkey users. */
  NATS_NKEY_SEED?: string;
}

/**
 * Connection options for one NATS URL and a set of credentials. nats.js does not read a user or
 * password written into the URL, so one given there (`nats://user:pass@host:4222`, handy for tools
 * and tests) is taken out of the URL and passed as options; explicit settings win over it.
 */
export function natsConnectOptions(url: string, creds: NatsCredentials = {}): ConnectionOptions {
  const servers: string[] = [];
  let fromUrl: { user: string; pass: string } | undefined;
  for (const one of url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const parsed = /^(\w+:\/\/)?(?:([^:@/]*)(?::([^@/]*))?@)?(.+)$/.exec(one);
    if (!parsed) {
      servers.push(one);
      continue;
    }
    const [, scheme = '', user, pass, rest] = parsed;
    if (user) fromUrl ??= { user: decodeURIComponent(user), pass: decodeURIComponent(pass ?? '') };
    servers.push(`${scheme}${rest}`);
  }
  const opts: ConnectionOptions = { servers };
  if (creds.NATS_CREDS) {
    const file = creds.NATS_CREDS;
    // Read at each (re)connect, so a rotated file is picked up without a restart.
    opts.authenticator = credsAuthenticator(() => new Uint8Array(fs.readFileSync(file)));
  } else if (creds.NATS_NKEY_SEED) {
    opts.authenticator = nkeyAuthenticator(new TextEncoder().encode(creds.NATS_NKEY_SEED));
  } else if (creds.NATS_USER) {
    opts.user = creds.NATS_USER;
    opts.pass = creds.NATS_PASSWORD ?? '';
  } else if (fromUrl) {
    opts.user = fromUrl.user;
    opts.pass = fromUrl.pass;
  }
  return opts;
}

/** Whether any credential is configured (a production service without one is warned about). */
export const hasNatsCredentials = (url: string, creds: NatsCredentials) =>
  Boolean(creds.NATS_CREDS || creds.NATS_NKEY_SEED || creds.NATS_USER || /\/\/[^/@]+@/.test(url));
