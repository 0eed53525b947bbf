import { constants } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isSea } from 'node:sea';
import { assertDatabaseName, DatabaseNameError } from '../config/names.js';
import { toolUri } from '../config/uri.js';
import { isCollectionName } from '@coffer/contracts';
import { PipelineError } from './errors.js';

export type ToolName = 'mongodump' | 'mongorestore';

export const INSTALL_HINT =
  'The agent from your Coffer server brings its own: run the installer again (it puts them beside ' +
  'the agent). Or install the MongoDB Database Tools (https://www.mongodb.com/docs/database-tools/installation/ — ' +
  'e.g. `apt install mongodb-database-tools` from the MongoDB repository, or the .tgz/.zip from ' +
  'https://www.mongodb.com/try/download/database-tools) and make sure they are on PATH ' +
  '(or set COFFER_TOOLS_DIR to their folder).';

/**
 * Where the installers put the Database Tools that come with the agent binary, relative to it:
 * /usr/local/bin/coffer-agent → /usr/local/lib/coffer/tools (and /usr/bin → /usr/lib for the
 * packages); on Windows %ProgramFiles%\Coffer\tools. Only a packaged agent (a single executable)
 * has bundled tools: the agent run by Node.js from the repository uses the tools on PATH.
 */
export function bundledToolsDir(
  execPath: string = process.execPath,
  platform: NodeJS.Platform = process.platform,
  packaged: boolean = isSea(),
): string | undefined {
  if (!packaged) return undefined;
  const p = platform === 'win32' ? path.win32 : path.posix;
  const dir = p.dirname(execPath);
  return platform === 'win32' ? p.join(dir, 'tools') : p.join(dir, '..', 'lib', 'coffer', 'tools');
}

/**
 * Finds `name` in $COFFER_TOOLS_DIR (the host's own tools, when configured), then in the folder of
 * the tools that came with the agent, then on PATH (like `which`); a missing tool is a
 * TOOL_MISSING error saying how to install it.
 */
export async function findTool(
  name: ToolName,
  env: NodeJS.ProcessEnv = process.env,
  bundled: string | undefined = bundledToolsDir(),
): Promise<string> {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE').split(';').filter(Boolean) : [''];
  const dirs = [env.COFFER_TOOLS_DIR ?? '', bundled ?? '', ...(env.PATH ?? '').split(path.delimiter)];
  for (const dir of dirs) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext.toLowerCase());
      try {
        await access(candidate, constants.X_OK);
        return candidate;
      } catch {
        // keep looking
      }
    }
  }
  throw new PipelineError(
    'TOOL_MISSING',
    `${name} was not found${[env.COFFER_TOOLS_DIR, bundled]
      .filter(Boolean)
      .map((d) => ` in ${d} or`)
      .join('')} on PATH. ${INSTALL_HINT}`,
  );
}

function checkedName(db: string): string {
  try {
    assertDatabaseName(db);
  } catch (e) {
    if (e instanceof DatabaseNameError) throw new PipelineError('INVALID_NAME', e.message);
    throw e;
  }
  return db;
}

/**
 * mongorestore namespace patterns treat `*` as a wildcard and `\` as an escape (mongo-tools
 * mongorestore/ns.Escape); everything else is literal as long as there is no `$`, which
 * database names cannot contain.
 */
export function escapeNsPattern(db: string): string {
  return db.replace(/\\/g, '\\\\').replace(/\*/g, '\\*');
}

/**
 * Arguments for `mongodump`. Every value is one argv element in `--opt=value` form (so a name
 * starting with '-' is still a value); no shell is ever involved. The URI and its credentials are
 * in the --config file, never on the command line.
 */
export function mongodumpArgs(opts: { configFile: string; db: string }): string[] {
  return [`--config=${opts.configFile}`, '--archive', `--db=${checkedName(opts.db)}`];
}

/**
 * Arguments for `mongorestore`: the archive on stdin, every collection it restores dropped and
 * replaced, namespaces moved from the database that was dumped to the target database (see
 * restoreNamespaceArgs; `collections` restores only those).
 */
export function mongorestoreArgs(opts: {
  configFile: string;
  fromDb: string;
  toDb: string;
  collections?: readonly string[];
}): string[] {
  return [`--config=${opts.configFile}`, '--archive', '--drop', ...restoreNamespaceArgs(opts)];
}

/**
 * The namespace arguments of a restore: `--nsFrom/--nsTo` move every collection of the database
 * that was dumped (`fromDb`) into `toDb` (another label's database, a verification's scratch
 * database, or the same name), and one `--nsInclude` per chosen collection, matched against the
 * archive's own namespaces (mongorestore filters before it renames), restores only those. Names
 * are validated and escaped for mongorestore's patterns; each argument is one argv element.
 */
export function restoreNamespaceArgs(opts: {
  fromDb: string;
  toDb: string;
  collections?: readonly string[];
}): string[] {
  const from = escapeNsPattern(checkedName(opts.fromDb));
  const include = (opts.collections ?? []).map(
    (c) => `--nsInclude=${from}.${escapeNsPattern(checkedCollection(c))}`,
  );
  return [...include, `--nsFrom=${from}.*`, `--nsTo=${escapeNsPattern(checkedName(opts.toDb))}.*`];
}

/** A collection name as a restore may name it (contracts isCollectionName), or INVALID_NAME. */
function checkedCollection(name: string): string {
  if (!isCollectionName(name))
    throw new PipelineError(
      'INVALID_NAME',
      `"${String(name).slice(0, 80)}" is not a collection name this agent restores`,
    );
  return name;
}

/** The YAML the tools read with --config: only `uri`, as a JSON-style double-quoted scalar. */
export function toolConfigYaml(uri: string): string {
  return `uri: ${JSON.stringify(toolUri(uri))}\n`;
}

/**
 * Runs `fn` with a tool config file holding the URI: a fresh private directory (0700) and the
 * file (0600) are created first and removed afterwards, whatever happens.
 */
export async function withToolConfig<T>(uri: string, fn: (configFile: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'coffer-agent-'));
  try {
    const file = path.join(dir, 'tool-config.yaml');
    await writeFile(file, toolConfigYaml(uri), { mode: 0o600, flag: 'wx' });
    return await fn(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
