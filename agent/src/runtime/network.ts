// Corporate networks: an HTTP(S) proxy named by the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY,
// as curl and most agents read them) and a private CA that signs the Coffer server's certificate.
// Both are set once for the whole process, so every way the agent reaches its server follows them:
// fetch (release checks, update downloads), node:https (backup uploads, restore downloads) and the
// Socket.IO connection (its WebSocket is given the global agent: ws otherwise connects directly).
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { ConfigError } from '../config/config.js';

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const;

/** The proxy the environment names, without user and password (for logs), or undefined. */
export function proxyFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const value = PROXY_VARIABLES.map((v) => env[v]?.trim()).find(Boolean);
  if (!value) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    throw new ConfigError(
      `${PROXY_VARIABLES.find((v) => env[v]?.trim())} is not a URL such as http://proxy.example:3128`,
    );
  return `${url.protocol}//${url.host}`;
}

/**
 * Routes fetch and node:http(s) through the environment's proxy (NO_PROXY honoured: Node.js's
 * built-in proxy support). Returns the proxy for the log, or undefined when none is set.
 */
export function useProxyFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const proxy = proxyFromEnv(env);
  if (proxy) http.setGlobalProxyFromEnv(env);
  return proxy;
}

/**
 * The agent for the Socket.IO WebSocket to `server`: the global one when a proxy is in use (it
 * tunnels with CONNECT), else none (ws connects directly, as it always did).
 */
export function socketAgent(server: string, proxy: string | undefined): http.Agent | undefined {
  if (!proxy) return undefined;
  return new URL(server).protocol === 'https:' ? https.globalAgent : http.globalAgent;
}

/**
 * Trusts the certificates in `file` (PEM, one or more) besides the system's: for a Coffer server
 * whose certificate a private CA signed. Returns how many were added.
 */
export async function trustCaFile(file: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`caFile ${file} cannot be read: ${(e as Error).message}`);
  }
  const certs = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certs.length === 0) throw new ConfigError(`caFile ${file} holds no PEM certificate`);
  try {
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), ...certs]);
  } catch (e) {
    throw new ConfigError(`caFile ${file}: ${(e as Error).message}`);
  }
  return certs.length;
}

/** What `run` and `update` apply before they reach the server; what is in use, for the log. */
export async function useNetworkSettings(
  env: NodeJS.ProcessEnv,
  caFile: string | undefined,
): Promise<{ proxy?: string; caFile?: string }> {
  const proxy = useProxyFromEnv(env);
  if (caFile) await trustCaFile(caFile);
  return { ...(proxy ? { proxy } : {}), ...(caFile ? { caFile } : {}) };
}
