import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { hasUnsafeText, UNSAFE_TEXT_RULE } from '@coffer/contracts';
import {
  configExists,
  loadConfig,
  resolveConfigPath,
  saveConfig,
  type AgentConfig,
} from '../../config/config.js';
import { fingerprintHex } from '../../crypto/format.js';
import { trustCaFile } from '../../runtime/network.js';
import { decodeKey, encodeKey, generateMasterKey } from '../../crypto/key.js';
import { parseCommand } from '../args.js';
import { note, out, promptLine, readStdin, UserError, type CliIo } from '../io.js';

export const INIT_HELP = `Usage: coffer-agent init --server URL [--api-key-file FILE|-] [--name NAME] [--ca-file FILE] [--state-dir DIR] [--force]

Writes the agent config with the service URL, your API key and a new random 256-bit master key.
Run again to change server, API key or name: the existing master key (and name, without --name) is kept. --force replaces the
master key with a new one (backups made with the old key then need the old key to be decrypted).
On a configured agent --server and --api-key may be left out: the current ones are kept.
The API key comes from --api-key-file FILE (- reads standard input), else the environment variable
COFFER_API_KEY, else the current config; else init asks for it when run in a terminal. Any user of
the host can read a command line in the process list, so --api-key KEY (still accepted) is best left out.
--ca-file FILE trusts the CA certificates in FILE (PEM) besides the system's, for a server whose
certificate a private CA signed.
--state-dir is where the daemon writes (status, instance id, updates); default: the config's folder.`;

/** The key from a file, or from standard input for "-": its first non-empty line. */
async function readApiKeyFile(file: string, io: CliIo): Promise<string> {
  let text: string;
  try {
    text = file === '-' ? await readStdin(io) : await readFile(file, 'utf8');
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`init: cannot read the API key from ${file}: ${(e as Error).message}`);
  }
  const line = text.split(/\r?\n/).find((l) => l.trim());
  if (!line) throw new UserError(`init: ${file === '-' ? 'standard input' : file} holds no API key`);
  return line.trim();
}

function checkServer(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UserError(`--server must be a URL such as https://coffer.example.com (got "${url}")`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw new UserError('--server must be an http:// or https:// URL');
  return u.toString().replace(/\/$/, '');
}

export async function initCommand(args: string[], io: CliIo, configPath: string): Promise<void> {
  const { values } = parseCommand(
    'init',
    args,
    {
      server: { type: 'string' },
      'api-key': { type: 'string' },
      'api-key-file': { type: 'string' },
      name: { type: 'string' },
      'state-dir': { type: 'string' },
      'ca-file': { type: 'string' },
      force: { type: 'boolean' },
    },
    { min: 0, max: 0 },
  );
  if (values.help) return out(io, INIT_HELP);
  let previous: AgentConfig | undefined;
  let unreadable: Error | undefined;
  if (await configExists(configPath)) {
    try {
      previous = await loadConfig(configPath);
    } catch (e) {
      unreadable = e as Error;
    }
  }
  // On a configured agent either may be left out and is kept (the installer's upgrade).
  const serverText = values.server ?? previous?.server;
  if (!serverText) throw new UserError('init: --server URL is required');
  // A file, standard input or the environment: any user on the host can read a process's command
  // line, but not its environment or a private file.
  const apiKey =
    values['api-key']?.trim() ||
    (values['api-key-file'] !== undefined ? await readApiKeyFile(values['api-key-file'], io) : undefined) ||
    io.env.COFFER_API_KEY?.trim() ||
    previous?.apiKey ||
    (io.stdin.isTTY ? await promptLine(io, 'API key (Settings → Security on the dashboard): ') : undefined);
  if (!apiKey)
    throw new UserError(
      'init: the API key is required: set COFFER_API_KEY or pass --api-key-file FILE (- for standard input); ' +
        'find it in the dashboard under Settings → Security',
    );
  const server = checkServer(serverText);
  if (unreadable)
    throw new UserError(
      `${unreadable.message} It may hold your master key, so init will not overwrite it: fix it or move it away first.`,
    );

  // Run again with only a new key (after Regenerate API Key), the agent keeps its name.
  const name = values.name?.trim() || previous?.name || os.hostname();
  // The gateway refuses such a name at every connect; say so here, where it can be fixed.
  if (hasUnsafeText(name)) throw new UserError(`init: the agent name ${UNSAFE_TEXT_RULE}`);
  const caFile = values['ca-file'] ? path.resolve(values['ca-file']) : undefined;
  // Checked now, where it can be fixed, rather than at the daemon's start.
  if (caFile) await trustCaFile(caFile);
  const keepKey = previous !== undefined && !values.force;
  const masterKey = keepKey ? decodeKey(previous!.masterKey) : generateMasterKey();
  const config: AgentConfig = {
    ...(previous ?? {}),
    version: 1,
    server,
    apiKey,
    name,
    masterKey: encodeKey(masterKey),
    createdAt: previous?.createdAt ?? new Date().toISOString(),
    ...(values['state-dir'] ? { stateDir: path.resolve(values['state-dir']) } : {}),
    ...(caFile ? { caFile } : {}),
    databases: previous?.databases ?? [],
  };
  await saveConfig(configPath, config);

  const fp = fingerprintHex(masterKey);
  out(io, `Agent config written to ${configPath} (server ${server}, agent name "${name}").`);
  if (keepKey) {
    out(io, `Kept the existing master key, fingerprint ${fp}.`);
    return;
  }
  if (previous) {
    note(io, `Replaced master key ${fingerprintHex(decodeKey(previous.masterKey))} with a new key.`);
    note(io, 'Backups made with the old key can only be decrypted with the old key.');
  }
  out(io, `Master key fingerprint: ${fp}`);
  out(io, '');
  out(io, 'IMPORTANT: keep a copy of the master key somewhere safe, away from this server:');
  out(io, `  coffer-agent key export --out coffer-master.key${configPathHint(configPath, io)}`);
  out(io, 'Without it no backup can be decrypted. Coffer never receives this key and cannot recover it.');
}

/** Repeats --config in suggested commands when the config is not where the agent looks by default. */
export function configPathHint(configPath: string, io: CliIo): string {
  return configPath === resolveConfigPath(undefined, io.env) ? '' : ` --config ${configPath}`;
}
