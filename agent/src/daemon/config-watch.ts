// `coffer-agent db add|remove` and `init` (often run as root beside a running service) only edit the
// config: the daemon polls its modification time, picks the change up and tells the server at once
// (a new API key: it reconnects with it).
import { stat } from 'node:fs/promises';
import { loadConfig, restorePolicyOf, type AgentConfig } from '../config/config.js';
import type { Logger } from './log.js';

export const CONFIG_POLL_MS = 5_000;

export async function watchConfig(deps: {
  path: string;
  intervalMs: number;
  log: Logger;
  stopping: () => boolean;
  current: () => AgentConfig;
  /** The config from now on; its server is the one the daemon started with. */
  use: (config: AgentConfig) => void;
  /** The API key changed (`init` with the new key): reconnect with it. */
  apiKeyChanged: () => void;
  /** The list of databases changed (worth a heartbeat now). */
  databasesChanged: () => void;
  /**
   * The master key changed (`key import`): the server must learn its fingerprint, which only the
   * handshake carries, so the dashboard offers this agent for the backups of that key.
   */
  masterKeyChanged?: () => void;
}): Promise<{ stop(): void }> {
  const { log } = deps;
  let stamp = (await stat(deps.path)).mtimeMs;
  const names = (c: AgentConfig) => c.databases.map((d) => d.name).join('\n');

  const reload = async () => {
    const st = await stat(deps.path).catch(() => undefined);
    if (!st || st.mtimeMs === stamp || deps.stopping()) return;
    stamp = st.mtimeMs;
    try {
      const fresh = await loadConfig(deps.path);
      const config = deps.current();
      const changed = names(fresh) !== names(config);
      if (fresh.server !== config.server)
        log.warn('the server changed in the config; restart the agent to use it');
      const keyChanged = Boolean(fresh.apiKey) && fresh.apiKey !== config.apiKey;
      const next = { ...fresh, server: config.server, apiKey: keyChanged ? fresh.apiKey : config.apiKey };
      deps.use(next);
      if (keyChanged) {
        log.info('the API key changed in the config; reconnecting with it');
        deps.apiKeyChanged();
      } else if (fresh.masterKey !== config.masterKey && deps.masterKeyChanged) {
        log.info('the master key changed in the config; reconnecting to report its fingerprint');
        deps.masterKeyChanged();
      }
      const policy = restorePolicyOf(fresh);
      if (JSON.stringify(policy) !== JSON.stringify(restorePolicyOf(config)))
        log.info('the restore policy changed in the config', { ...policy });
      if (changed) {
        log.info('databases changed in the config', { databases: next.databases.map((d) => d.name) });
        deps.databasesChanged();
      }
    } catch (e) {
      log.warn('the config changed but cannot be used; keeping the previous one', {
        error: (e as Error).message,
      });
    }
  };
  const timer = setInterval(() => void reload(), deps.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
