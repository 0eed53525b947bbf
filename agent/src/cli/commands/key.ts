import { readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import { configExists, loadConfig, masterKeyOf, saveConfig } from '../../config/config.js';
import { writeFileAtomic } from '../../config/files.js';
import { fingerprintHex } from '../../crypto/format.js';
import { encodeKey, keyFileText, KeyFormatError, parseKeyFile } from '../../crypto/key.js';
import { parseCommand } from '../args.js';
import { note, out, readStdin, UsageError, UserError, type CliIo } from '../io.js';

export const KEY_HELP = `Usage:
  coffer-agent key export [--out FILE] [--force]   print the master key, or write it to FILE (mode 0600)
  coffer-agent key import FILE|- [--force]         use the key in FILE (or stdin) as this agent's master key
  coffer-agent key fingerprint                     print the master key's fingerprint

The key file is text: '#' comment lines and one line "coffer-key-v1:<43 base64url characters>".
docs/encryption-format.md describes it; docs/decrypt_coffer.py reads it.`;

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

export async function keyCommand(
  sub: string | undefined,
  args: string[],
  io: CliIo,
  configPath: string,
): Promise<void> {
  switch (sub) {
    case 'export': {
      const { values } = parseCommand(
        'key export',
        args,
        { out: { type: 'string', short: 'o' }, force: { type: 'boolean' } },
        { min: 0, max: 0 },
      );
      if (values.help) return out(io, KEY_HELP);
      const key = masterKeyOf(await loadConfig(configPath));
      if (!values.out || values.out === '-') {
        io.stdout.write(keyFileText(key));
        return;
      }
      if (!values.force && (await exists(values.out)))
        throw new UserError(`key export: ${values.out} already exists (use --force to overwrite it)`);
      await writeFileAtomic(values.out, keyFileText(key));
      out(
        io,
        `Master key written to ${values.out} (fingerprint ${fingerprintHex(key)}). Store it offline, apart from your backups.`,
      );
      return;
    }
    case 'import': {
      const { values, positionals } = parseCommand(
        'key import',
        args,
        { force: { type: 'boolean' } },
        { min: 1, max: 1 },
      );
      if (values.help) return out(io, KEY_HELP);
      const source = positionals[0]!;
      let text: string;
      try {
        text = source === '-' ? await readStdin(io) : await readFile(source, 'utf8');
      } catch (e) {
        if (e instanceof UserError) throw e;
        throw new UserError(
          `key import: cannot read ${source}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
        );
      }
      let key: Buffer;
      try {
        key = parseKeyFile(text);
      } catch (e) {
        if (e instanceof KeyFormatError) throw new UserError(`key import: ${e.message}`);
        throw e;
      }
      const fp = fingerprintHex(key);
      if (!(await configExists(configPath))) {
        await saveConfig(configPath, {
          version: 1,
          name: os.hostname(),
          masterKey: encodeKey(key),
          createdAt: new Date().toISOString(),
          databases: [],
        });
        out(io, `Master key imported into ${configPath}, fingerprint ${fp}.`);
        out(io, 'Run `coffer-agent init --server URL` to connect this agent to Coffer (the key is kept).');
        return;
      }
      const config = await loadConfig(configPath);
      const current = masterKeyOf(config);
      if (current.equals(key)) {
        out(io, `This agent already uses that master key (fingerprint ${fp}).`);
        return;
      }
      if (!values.force) {
        throw new UserError(
          `key import: this agent already has a different master key (fingerprint ${fingerprintHex(current)}). ` +
            'Export it first (coffer-agent key export --out old.key) if any backup was made with it, then re-run with --force.',
        );
      }
      await saveConfig(configPath, { ...config, masterKey: encodeKey(key) });
      note(io, `Replaced master key ${fingerprintHex(current)}.`);
      out(io, `Master key imported, fingerprint ${fp}.`);
      return;
    }
    case 'fingerprint': {
      const { values } = parseCommand('key fingerprint', args, {}, { min: 0, max: 0 });
      if (values.help) return out(io, KEY_HELP);
      out(io, fingerprintHex(masterKeyOf(await loadConfig(configPath))));
      return;
    }
    default:
      if (sub === undefined && args.some((a) => a === '--help' || a === '-h')) return out(io, KEY_HELP);
      throw new UsageError(
        sub ? `unknown key command "${sub}"` : 'key: missing command (export, import or fingerprint)',
      );
  }
}
