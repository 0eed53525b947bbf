import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig, masterKeyOf } from '../../config/config.js';
import { KeyFormatError, parseKeyFile } from '../../crypto/key.js';
import { decryptFile, verifyFile } from '../../crypto/verify.js';
import { parseCommand } from '../args.js';
import { formatBytes, note, out, UserError, type CliIo } from '../io.js';

export const DECRYPT_HELP = `Usage: coffer-agent decrypt FILE [-o OUT] [--key-file KEYFILE] [--force]

Offline: verifies the whole backup (every chunk, its end, the key fingerprint), then writes the
plain mongodump archive to OUT (default: FILE without .coffer/.enc, plus .archive; '-' for stdout).
Restore it with: mongorestore --archive=OUT --drop
The key comes from the agent config, or from --key-file (a file written by \`coffer-agent key export\`).`;

export const VERIFY_HELP = `Usage: coffer-agent verify FILE [--key-file KEYFILE]

Checks that FILE is a complete, unaltered Coffer backup made with this key, without writing anything.
For a backup bound to its database (format version 2) it also checks the archive inside against
the file's sealed record (its length and SHA-256), and names the database and backup.`;

async function keyFrom(keyFile: string | undefined, configPath: string): Promise<Buffer> {
  if (!keyFile) return masterKeyOf(await loadConfig(configPath));
  let text: string;
  try {
    text = await readFile(keyFile, 'utf8');
  } catch (e) {
    throw new UserError(
      `cannot read key file ${keyFile}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  try {
    return parseKeyFile(text);
  } catch (e) {
    if (e instanceof KeyFormatError) throw new UserError(`key file ${keyFile}: ${e.message}`);
    throw e;
  }
}

async function checkInput(file: string): Promise<void> {
  let s;
  try {
    s = await stat(file);
  } catch {
    throw new UserError(`${file}: no such file`);
  }
  if (!s.isFile()) throw new UserError(`${file} is not a file`);
}

/** backup-shop-2025-01-01T00:00:00.000Z.enc.coffer → backup-shop-2025-01-01T00:00:00.000Z.archive */
export function defaultOutput(file: string): string {
  const base = file.replace(/(\.enc)?\.coffer$/i, '').replace(/\.enc$/i, '');
  return `${base === file ? file : base}.archive`;
}

export async function decryptCommand(args: string[], io: CliIo, configPath: string): Promise<void> {
  const { values, positionals } = parseCommand(
    'decrypt',
    args,
    { out: { type: 'string', short: 'o' }, 'key-file': { type: 'string' }, force: { type: 'boolean' } },
    { min: 1, max: 1 },
  );
  if (values.help) return out(io, DECRYPT_HELP);
  const file = positionals[0]!;
  await checkInput(file);
  const key = await keyFrom(values['key-file'], configPath);
  const target = values.out ?? defaultOutput(file);
  if (target !== '-') {
    if (path.resolve(target) === path.resolve(file))
      throw new UserError('decrypt: the output would overwrite the backup itself; choose another -o');
    const taken = await stat(target).then(
      () => true,
      () => false,
    );
    if (taken && !values.force)
      throw new UserError(`decrypt: ${target} already exists (use --force to overwrite it, or -o OUT)`);
  }
  const r = await decryptFile(file, target === '-' ? io.stdout : target, key);
  note(io, `Verified ${file}: ${r.chunks} chunk(s), key fingerprint ${r.fingerprint}.`);
  if (target !== '-') {
    note(
      io,
      `Wrote ${target} (${formatBytes(r.outputBytes)}). Restore it with: mongorestore --archive=${JSON.stringify(target)} --drop`,
    );
  }
}

export async function verifyCommand(args: string[], io: CliIo, configPath: string): Promise<void> {
  const { values, positionals } = parseCommand(
    'verify',
    args,
    { 'key-file': { type: 'string' } },
    { min: 1, max: 1 },
  );
  if (values.help) return out(io, VERIFY_HELP);
  const file = positionals[0]!;
  await checkInput(file);
  const key = await keyFrom(values['key-file'], configPath);
  const r = await verifyFile(file, key, { archive: true });
  out(
    io,
    `OK: ${file} is a complete, unaltered Coffer backup (${r.chunks} chunk(s), ${formatBytes(r.fileBytes)}, ${r.compression}), encrypted with key ${r.fingerprint}.`,
  );
  if (r.binding)
    out(
      io,
      `It is backup ${r.binding.backupId} of database "${r.binding.label}": ${r.record?.namespaces.length ?? 0} collection(s), ${formatBytes(r.record?.archiveBytes ?? 0)} of archive.`,
    );
}
