// coffer-agent command line. `bin/coffer-agent` calls `cli()`; tests call `main()` with their
// own streams and environment.
import { ConfigError, permissionWarning, resolveConfigPath } from '../config/config.js';
import { DatabaseNameError } from '../config/names.js';
import { UriError } from '../config/uri.js';
import { CofferFormatError } from '../crypto/errors.js';
import { KeyFormatError } from '../crypto/key.js';
import { PipelineError } from '../pipeline/errors.js';
import { AGENT_VERSION, versionLine } from '../runtime/build-info.js';
import { PreflightError } from '../runtime/preflight.js';
import { GLOBAL_OPTIONS, splitCommand } from './args.js';
import { configCommand } from './commands/config.js';
import { dbCommand } from './commands/db.js';
import { decryptCommand, verifyCommand } from './commands/decrypt.js';
import { initCommand } from './commands/init.js';
import { keyCommand } from './commands/key.js';
import { restoresCommand } from './commands/restores.js';
import { runCommand } from './commands/run.js';
import { statusCommand } from './commands/status.js';
import { updateCommand } from './commands/update.js';
import { note, out, UsageError, UserError, type CliIo } from './io.js';
import { removePartials } from '../util/partial-files.js';
import { parseArgs } from 'node:util';

export const HELP = `coffer-agent — the Coffer backup agent

Usage: coffer-agent COMMAND [options]

  init --server URL [--name NAME]                 configure this agent (asks for the API key, creates the master key)
  key export [--out FILE]                         print or save the master key — keep a copy!
  key import FILE|-                               use an exported master key on this machine
  key fingerprint                                 show the master key's fingerprint
  db add NAME --uri URI|- [--db DATABASE]         add a database to back up (checks the connection)
  db list                                         list the databases (names only)
  db remove NAME                                  forget a database and its connection string
  restores [allow|deny|binding MODE]              which restores this agent accepts (MODE: required|optional)
  decrypt FILE [-o OUT] [--key-file KEYFILE]      verify and decrypt a downloaded backup, offline
  verify FILE [--key-file KEYFILE]                check a backup without decrypting it to disk
  status                                          is the backup daemon running?
  run                                             run the backup daemon (foreground)
  update [--check]                                install the newest agent your Coffer server offers
  config updates [on|off]                         let the server update this agent, or not
  --version                                       version, platform and the Node.js inside

Every command takes --config PATH (default: $COFFER_AGENT_CONFIG, else
$XDG_CONFIG_HOME/coffer/agent.json, else ~/.config/coffer/agent.json).
COMMAND --help shows a command's options.`;

const GROUPS = {
  key: ['export', 'import', 'fingerprint'],
  db: ['add', 'list', 'remove'],
  config: ['updates'],
  restores: ['show', 'allow', 'deny', 'binding'],
} as const;

/** Errors a user can act on, shown as one line; anything else is a bug and says so. */
function describeError(e: unknown): { message: string; code: number; expected: boolean } {
  if (e instanceof UserError) return { message: e.message, code: e.exitCode, expected: true };
  if (
    e instanceof ConfigError ||
    e instanceof KeyFormatError ||
    e instanceof UriError ||
    e instanceof DatabaseNameError
  ) {
    return { message: e.message, code: 1, expected: true };
  }
  if (e instanceof CofferFormatError) return { message: e.message, code: 1, expected: true };
  if (e instanceof PipelineError || e instanceof PreflightError)
    return { message: e.message, code: 1, expected: true };
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === 'string' && err.syscall && err.path) {
    const what = {
      ENOENT: 'no such file or directory',
      EACCES: 'permission denied',
      EISDIR: 'is a directory',
      ENOSPC: 'no space left on the device',
    }[err.code];
    return { message: `${err.path}: ${what ?? err.message}`, code: 1, expected: true };
  }
  return { message: `unexpected error: ${err?.message ?? String(e)}`, code: 70, expected: false };
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    const { words, rest } = splitCommand(argv, GROUPS);
    const [command, sub] = words;
    if (!command) {
      const { values } = parseArgs({
        args: rest.length ? rest : argv,
        options: { ...GLOBAL_OPTIONS, version: { type: 'boolean', short: 'v' } },
        strict: false,
      });
      if (values.version) out(io, versionLine());
      else if (values.help) out(io, HELP);
      else {
        note(io, HELP);
        return 2;
      }
      return 0;
    }
    const configFlag = parseArgs({
      args: rest,
      options: GLOBAL_OPTIONS,
      strict: false,
      allowPositionals: true,
    }).values.config;
    const configPath = resolveConfigPath(typeof configFlag === 'string' ? configFlag : undefined, io.env);
    const warning = await permissionWarning(configPath);
    if (warning) note(io, warning);
    switch (command) {
      case 'init':
        await initCommand(rest, io, configPath);
        break;
      case 'key':
        await keyCommand(sub, rest, io, configPath);
        break;
      case 'db':
        await dbCommand(sub, rest, io, configPath);
        break;
      case 'restores':
        await restoresCommand(sub, rest, io, configPath);
        break;
      case 'decrypt':
        await decryptCommand(rest, io, configPath);
        break;
      case 'verify':
        await verifyCommand(rest, io, configPath);
        break;
      case 'status':
        await statusCommand(rest, io, configPath);
        break;
      case 'run':
        return await runCommand(rest, io, configPath, AGENT_VERSION);
      case 'update':
        await updateCommand(rest, io, configPath);
        break;
      case 'config':
        await configCommand(sub, rest, io, configPath);
        break;
      case 'help':
        out(io, HELP);
        break;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
    return 0;
  } catch (e) {
    const { message, code, expected } = describeError(e);
    note(io, `coffer-agent: ${message}`);
    if (!expected && io.env.COFFER_DEBUG) note(io, (e as Error).stack ?? '');
    else if (!expected)
      note(io, 'coffer-agent: this is a bug; run again with COFFER_DEBUG=1 for details and report it.');
    return code;
  }
}

/** Entry point for bin/coffer-agent. */
export function cli(): void {
  // A reader that went away (`coffer-agent db list | head`, a closed log pipe) is not an error worth a
  // crash: drop what cannot be written; the command (or the daemon) carries on and exits as it would.
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  let settled = false;
  // Node exits with code 0 when nothing is left to wait for, even while a command's promise is
  // unsettled (a stream that never ended): a script must never read that as success.
  process.on('beforeExit', () => {
    if (settled) return;
    settled = true;
    removePartials();
    process.stderr.write(
      'coffer-agent: the command stopped before it finished; nothing it wrote is complete. This is a bug: run again with COFFER_DEBUG=1 and report it.\n',
    );
    process.exitCode = 70;
  });
  main(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  }).then(
    (code) => {
      settled = true;
      process.exitCode = code;
    },
    (e: unknown) => {
      settled = true;
      process.stderr.write(`coffer-agent: ${String(e)}\n`);
      process.exitCode = 70;
    },
  );
}
