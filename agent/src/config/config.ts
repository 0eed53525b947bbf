// The agent's local config file: server, API key, master key and the databases it backs up.
// It is the only place connection strings and the key live (docs/product.md §1, zero knowledge): mode 0600, in a
// 0700 directory, never sent anywhere.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DATABASE_LABEL_PATTERN, DATABASE_LABEL_RULE, LIMITS } from '@coffer/contracts';
import { decodeKey } from '../crypto/key.js';
import { fingerprintHex } from '../crypto/format.js';
import { writeFileAtomic } from './files.js';
import { parseMongoUri } from './uri.js';
import { checkDatabaseName } from './names.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Database labels are what the service and the dashboard show (the agent protocol's rule). */
export const LABEL_RE = DATABASE_LABEL_PATTERN;
export const LABEL_RULE = DATABASE_LABEL_RULE;

const zUri = z.string().superRefine((s, ctx) => {
  try {
    parseMongoUri(s);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
  }
});

const zDbName = z.string().superRefine((s, ctx) => {
  const problem = checkDatabaseName(s);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const DatabaseEntrySchema = z.object({
  /** Label the service sees. */
  name: z.string().regex(LABEL_RE, `database label must be ${LABEL_RULE}`),
  /** Connection string; secret, local only. */
  uri: zUri,
  /** The database mongodump dumps and mongorestore restores into. */
  db: zDbName,
  /**
   * Connection string of a separate MongoDB that verifications restore their scratch copy on
   * (`coffer-agent db verify-target`); secret, local only. Absent: the database's own server.
   */
  verifyTarget: zUri.optional(),
});

/**
 * What restores the host allows (restore-policy.ts; `coffer-agent restores`). Absent fields take
 * the defaults: restores allowed, as the dashboard's restore needs; and only backups bound to the
 * label being restored, so a compromised server cannot hand over a file of another database or
 * another backup. Backups written before format version 2 are not bound: restoring them takes
 * `coffer-agent restores binding optional` on the host, the owner's decision, not the server's.
 */
export const RestoresSchema = z.object({
  allowed: z.boolean().default(true),
  requireBinding: z.boolean().default(true),
});

export const AgentConfigSchema = z.looseObject({
  version: z.literal(1),
  /** Gateway base URL; absent on a key-only (offline decrypt) config. */
  server: z.url({ protocol: /^https?$/ }).optional(), // z.httpUrl() refuses IPs and localhost
  apiKey: z.string().min(1).max(LIMITS.apiKey).optional(),
  name: z.string().min(1).max(LIMITS.agentName),
  masterKey: z.string().superRefine((s, ctx) => {
    try {
      decodeKey(s);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
    }
  }),
  createdAt: z.string().optional(),
  /** The host's restore policy; written only when changed from the defaults. */
  restores: RestoresSchema.optional(),
  /**
   * Where the daemon writes (status file, instance id, updates); the config's folder when absent.
   * A service install points it at a folder of its own, so the config can be read-only for it.
   */
  stateDir: z.string().min(1).max(1000).optional(),
  /** A PEM file of CA certificates to trust besides the system's (a private CA; init --ca-file). */
  caFile: z.string().min(1).max(1000).optional(),
  /** 'off': this host refuses updates the server asks for (`coffer-agent config updates off`). */
  updates: z.enum(['on', 'off']).optional(),
  databases: z
    .array(DatabaseEntrySchema)
    .default([])
    .superRefine((dbs, ctx) => {
      const seen = new Set<string>();
      dbs.forEach((d, i) => {
        if (seen.has(d.name))
          ctx.addIssue({
            code: 'custom',
            path: [i, 'name'],
            message: `duplicate database label "${d.name}"`,
          });
        seen.add(d.name);
      });
    }),
});

export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type DatabaseEntry = z.infer<typeof DatabaseEntrySchema>;

/** Where the service installers put the config (install.sh, install.ps1). */
export function systemConfigPath(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return platform === 'win32'
    ? path.win32.join(env.ProgramData ?? 'C:\\ProgramData', 'Coffer', 'agent.json')
    : '/etc/coffer/agent.json';
}

/**
 * --config, else $COFFER_AGENT_CONFIG, else the user's config ($XDG_CONFIG_HOME/coffer/agent.json
 * or ~/.config/coffer/agent.json) when it exists, else the service install's config when that
 * exists (so `sudo coffer-agent db add` finds it), else the user's path.
 */
export function resolveConfigPath(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  exists: (file: string) => boolean = existsSync,
): string {
  if (flag) return path.resolve(flag);
  if (env.COFFER_AGENT_CONFIG) return path.resolve(env.COFFER_AGENT_CONFIG);
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(os.homedir(), '.config');
  const user = path.join(base, 'coffer', 'agent.json');
  if (exists(user)) return user;
  const system = systemConfigPath(process.platform, env);
  return exists(system) ? system : user;
}

/** The folder the daemon writes to: the config's `stateDir`, else the config's own folder. */
export function stateDirFor(configPath: string, config?: Pick<AgentConfig, 'stateDir'>): string {
  return config?.stateDir ? path.resolve(config.stateDir) : path.dirname(configPath);
}

/**
 * What the daemon's own files are named after: the config's file name without `.json`. Two
 * configs in one folder (two agents on one host) then never share a status file or an instance id,
 * and the usual `agent.json` keeps the names it always had (`agent.status.json`, `agent.instance-id`).
 */
export function configBaseName(configPath: string): string {
  const name = path.basename(configPath);
  return name.replace(/\.json$/i, '') || name;
}

/** The daemon's status file, in its state folder: `<config name>.status.json`. */
export function statusPathFor(configPath: string, config?: Pick<AgentConfig, 'stateDir'>): string {
  return path.join(stateDirFor(configPath, config), `${configBaseName(configPath)}.status.json`);
}

/**
 * Which configuration file the agent runs from, as the server knows it (handshake `configId`): a
 * hash of the file's absolute path, so the path itself stays on the host. An agent set up again
 * with the same file replaces its old registration; two agents of one host, each with its own
 * file, stay two even under the same (default: the host's) name.
 */
export function configIdFor(configPath: string): string {
  return createHash('sha256').update(path.resolve(configPath)).digest('hex').slice(0, 32);
}

/** The file keeping the agent's instance id, in its state folder: `<config name>.instance-id`. */
export function instancePathFor(configPath: string, config?: Pick<AgentConfig, 'stateDir'>): string {
  return path.join(stateDirFor(configPath, config), `${configBaseName(configPath)}.instance-id`);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const where = i.path.length
        ? i.path
            .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
            .join('')
            .replace(/^\./, '')
        : '(top level)';
      // Never echo values: the file holds secrets.
      return `${where}: ${i.message}`;
    })
    .join('; ');
}

export async function configExists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** Reads and validates the config; every failure is a ConfigError with a one-line reason. */
export async function loadConfig(file: string): Promise<AgentConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new ConfigError(
        `No agent config at ${file}. Run \`coffer-agent init --server URL\` first (or pass --config PATH).`,
      );
    }
    if (code === 'EACCES') throw new ConfigError(`Cannot read the agent config ${file}: permission denied.`);
    throw new ConfigError(`Cannot read the agent config ${file}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`The agent config ${file} is not valid JSON (${(e as Error).message}).`);
  }
  const parsed = AgentConfigSchema.safeParse(json);
  if (!parsed.success)
    throw new ConfigError(`The agent config ${file} is invalid: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** Validates and writes the config atomically (mode 0600; a missing directory is created 0700). */
export async function saveConfig(file: string, config: AgentConfig): Promise<void> {
  const parsed = AgentConfigSchema.safeParse(config);
  if (!parsed.success)
    throw new ConfigError(`Refusing to write an invalid agent config: ${describeIssues(parsed.error)}`);
  await writeFileAtomic(file, JSON.stringify(parsed.data, null, 2) + '\n');
}

/** A warning when the config file can be read by other users, else undefined. */
export async function permissionWarning(file: string): Promise<string | undefined> {
  try {
    const s = await stat(file);
    if (process.platform !== 'win32' && (s.mode & 0o077) !== 0) {
      return `warning: ${file} is accessible by other users (mode ${(s.mode & 0o777).toString(8)}); it holds your master key. Run: chmod 600 ${file}`;
    }
  } catch {
    // reported by loadConfig
  }
  return undefined;
}

export function masterKeyOf(config: AgentConfig): Buffer {
  return decodeKey(config.masterKey);
}

/**
 * The fingerprint of the configured master key (never the key), as the agent reports it when it
 * connects; '' when the config holds no usable key (the agent then restores nothing anyway).
 */
export function keyFingerprintOf(config: AgentConfig): string {
  try {
    return fingerprintHex(masterKeyOf(config));
  } catch {
    return '';
  }
}

/** Whether the server may update this agent (the host's switch; on unless turned off). */
export const updatesAllowed = (config: Pick<AgentConfig, 'updates'>): boolean => config.updates !== 'off';

export type RestoresConfig = z.infer<typeof RestoresSchema>;

/** The restore policy in force: the config's, with the defaults for what it does not say. */
export function restorePolicyOf(config: Pick<AgentConfig, 'restores'>): RestoresConfig {
  return RestoresSchema.parse(config.restores ?? {});
}

export function findDatabase(config: AgentConfig, label: string): DatabaseEntry | undefined {
  return config.databases.find((d) => d.name === label);
}
