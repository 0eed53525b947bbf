import { findDatabase, LABEL_RE, LABEL_RULE, loadConfig, saveConfig } from '../../config/config.js';
import { checkDatabaseName } from '../../config/names.js';
import { describeUri, parseMongoUri, UriError } from '../../config/uri.js';
import { checkDatabase, withClient } from '../../pipeline/mongo.js';
import { verifyTargetProblem } from '../../pipeline/verify.js';
import { parseCommand } from '../args.js';
import { note, out, readStdin, UsageError, UserError, type CliIo } from '../io.js';

export const DB_HELP = `Usage:
  coffer-agent db add NAME --uri URI|- [--db DATABASE] [--no-check] [--force]
  coffer-agent db list
  coffer-agent db remove NAME
  coffer-agent db verify-target NAME --uri URI|- | --clear

NAME is the label Coffer shows for the database; the connection string stays in the local config.
--uri - reads the connection string from standard input, keeping it out of shell history and ps.
The database to back up is the one named in the URI path (mongodb://host/DATABASE) or --db.
The connection is checked before the database is added unless --no-check is given.
verify-target names a separate MongoDB on which verified backups restore their scratch copy
(a database coffer_verify_… the agent creates and drops); without one, the database's own server.
--clear goes back to the database's own server.`;

async function readUri(io: CliIo, name: string, command = 'db add'): Promise<string> {
  if (io.stdin.isTTY) io.stderr.write(`Connection string for "${name}": `);
  const text = await readStdin(io);
  const line = text.split(/\r?\n/).find((l) => l.trim());
  if (!line) throw new UserError(`${command}: no connection string on standard input`);
  return line.trim();
}

function parsedUri(uri: string, command: string) {
  try {
    return parseMongoUri(uri);
  } catch (e) {
    if (e instanceof UriError) throw new UserError(`${command}: ${e.message}`);
    throw e;
  }
}

/** The verify target answers (a wrong password is better found now than at the first verification). */
async function checkServer(uri: string, name: string): Promise<void> {
  await withClient(uri, `verify target of ${name}`, (c) => c.db('admin').command({ ping: 1 }));
}

export async function dbCommand(
  sub: string | undefined,
  args: string[],
  io: CliIo,
  configPath: string,
): Promise<void> {
  switch (sub) {
    case 'add': {
      const { values, positionals } = parseCommand(
        'db add',
        args,
        {
          uri: { type: 'string' },
          db: { type: 'string' },
          'no-check': { type: 'boolean' },
          force: { type: 'boolean' },
        },
        { min: 1, max: 1 },
      );
      if (values.help) return out(io, DB_HELP);
      const name = positionals[0]!;
      if (!LABEL_RE.test(name))
        throw new UserError(`db add: the name "${name}" is not allowed; use ${LABEL_RULE}`);
      if (values.uri === undefined)
        throw new UserError('db add: --uri URI is required (use --uri - to type or pipe it in)');
      const config = await loadConfig(configPath);
      if (findDatabase(config, name) && !values.force)
        throw new UserError(`db add: a database named "${name}" already exists (use --force to replace it)`);

      const uri = values.uri === '-' ? await readUri(io, name) : values.uri.trim();
      const parsed = parsedUri(uri, 'db add');
      const db = values.db ?? parsed.database;
      if (!db) {
        throw new UserError(
          'db add: the connection string names no database; put it in the path (mongodb://host:27017/DATABASE) or pass --db DATABASE',
        );
      }
      const problem = checkDatabaseName(db);
      if (problem) throw new UserError(`db add: ${problem}`);

      if (!values['no-check']) {
        const collections = await checkDatabase(uri, db, name);
        const docs = collections.reduce((n, c) => n + c.count, 0);
        if (collections.length === 0)
          note(io, `warning: database "${db}" has no collections yet; check the name if that is unexpected.`);
        out(
          io,
          `Connected: database "${db}" has ${collections.length} collection(s), about ${docs} document(s).`,
        );
      }
      const databases = config.databases.filter((d) => d.name !== name);
      databases.push({ name, uri, db });
      await saveConfig(configPath, { ...config, databases });
      out(io, `Added database "${name}" (backs up "${db}"). Its connection string stays in ${configPath}.`);
      return;
    }
    case 'list': {
      const { values } = parseCommand('db list', args, {}, { min: 0, max: 0 });
      if (values.help) return out(io, DB_HELP);
      const config = await loadConfig(configPath);
      if (config.databases.length === 0) {
        note(io, 'No databases configured. Add one with: coffer-agent db add NAME --uri -');
        return;
      }
      for (const d of config.databases) out(io, d.name);
      return;
    }
    case 'remove': {
      const { values, positionals } = parseCommand('db remove', args, {}, { min: 1, max: 1 });
      if (values.help) return out(io, DB_HELP);
      const name = positionals[0]!;
      const config = await loadConfig(configPath);
      if (!findDatabase(config, name))
        throw new UserError(`db remove: no database named "${name}" (see coffer-agent db list)`);
      await saveConfig(configPath, { ...config, databases: config.databases.filter((d) => d.name !== name) });
      out(
        io,
        `Removed database "${name}" and its connection string from this agent. Its backups stay on the service.`,
      );
      return;
    }
    case 'verify-target': {
      const { values, positionals } = parseCommand(
        'db verify-target',
        args,
        { uri: { type: 'string' }, clear: { type: 'boolean' } },
        { min: 1, max: 1 },
      );
      if (values.help) return out(io, DB_HELP);
      const name = positionals[0]!;
      const config = await loadConfig(configPath);
      const entry = findDatabase(config, name);
      if (!entry)
        throw new UserError(`db verify-target: no database named "${name}" (see coffer-agent db list)`);
      if (Boolean(values.clear) === (values.uri !== undefined))
        throw new UserError(
          'db verify-target: give either --uri URI (use --uri - to type or pipe it in) or --clear',
        );
      let verifyTarget: string | undefined;
      if (values.uri !== undefined) {
        verifyTarget = values.uri === '-' ? await readUri(io, name, 'db verify-target') : values.uri.trim();
        parsedUri(verifyTarget, 'db verify-target');
        const problem = verifyTargetProblem(entry, verifyTarget);
        if (problem) throw new UserError(`db verify-target: refused: ${problem}`);
        await checkServer(verifyTarget, name);
      }
      const { verifyTarget: _old, ...rest } = entry;
      const databases = config.databases.map((d) =>
        d.name === name ? { ...rest, ...(verifyTarget ? { verifyTarget } : {}) } : d,
      );
      await saveConfig(configPath, { ...config, databases });
      out(
        io,
        verifyTarget
          ? `Verifications of "${name}" will restore their scratch copy on ${describeUri(verifyTarget)}. The connection string stays in ${configPath}.`
          : `Verifications of "${name}" will restore their scratch copy on the database's own server.`,
      );
      return;
    }
    default:
      if (sub === undefined && args.some((a) => a === '--help' || a === '-h')) return out(io, DB_HELP);
      throw new UsageError(
        sub ? `unknown db command "${sub}"` : 'db: missing command (add, list, remove or verify-target)',
      );
  }
}
