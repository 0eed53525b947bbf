// What the daemon must never let out of the machine: the API key, the master key and every part
// of a connection string that could be a credential.
import type { AgentConfig } from '../config/config.js';
import { uriSecrets } from '../config/uri.js';

/** Every form a secret of this config could take in a log line or an error message. */
export function secretsOf(config: AgentConfig): string[] {
  const raw = [config.apiKey ?? '', config.masterKey, config.masterKey.split(':').pop() ?? ''];
  for (const d of config.databases) {
    raw.push(d.uri, ...uriSecrets(d.uri));
    if (d.verifyTarget) raw.push(d.verifyTarget, ...uriSecrets(d.verifyTarget));
  }
  const all = raw.filter((s) => s.length >= 4);
  // JSON.stringify escapes quotes and backslashes: mask the escaped spelling too.
  return [...new Set([...all, ...all.map((s) => JSON.stringify(s).slice(1, -1))])];
}
