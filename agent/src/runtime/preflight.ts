// What the daemon checks before it connects: everything a backup or a restore will need, so a
// missing piece is one clear line at start rather than a failure half-way through a backup.
import { execFile } from 'node:child_process';
import zlib from 'node:zlib';
import { findTool, type ToolName } from '../pipeline/tools.js';
import { PipelineError } from '../pipeline/errors.js';

export class PreflightError extends Error {
  override readonly name = 'PreflightError';
}

export interface ToolInfo {
  name: ToolName;
  path: string;
  /** The first line of `TOOL --version`, e.g. "mongodump version: 100.12.0". */
  version: string;
}

/** How the log and `coffer-agent status` show a tool: where it is and which version. */
export const describeTool = (t: ToolInfo): string => `${t.path} (${t.version})`;

/** zstd streams arrived in node:zlib with Node.js 24 (22.15 behind a flag). */
export function checkZstd(z: Partial<typeof zlib> = zlib, nodeVersion = process.version): void {
  if (typeof z.createZstdCompress !== 'function' || typeof z.createZstdDecompress !== 'function')
    throw new PreflightError(
      `this Node.js (${nodeVersion}) has no zstd in node:zlib; use the single-file coffer-agent ` +
        'binary from your Coffer server (/downloads, no Node.js needed) or run it with Node.js 24 or newer',
    );
}

function toolVersion(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, ['--version'], { timeout: 15_000, windowsHide: true }, (err, stdout) => {
      if (err) return reject(err);
      resolve(
        stdout
          .split(/\r?\n/)
          .find((l) => l.trim())
          ?.trim() ?? 'unknown version',
      );
    });
  });
}

/** Finds a tool and asks its version; a tool that is missing or does not run is a PreflightError. */
export async function checkTool(name: ToolName, env: NodeJS.ProcessEnv = process.env): Promise<ToolInfo> {
  let file: string;
  try {
    file = await findTool(name, env);
  } catch (e) {
    if (e instanceof PipelineError) throw new PreflightError(e.message);
    throw e;
  }
  try {
    return { name, path: file, version: await toolVersion(file) };
  } catch (e) {
    throw new PreflightError(
      `${file} does not run (${(e as Error).message.split('\n')[0]}); reinstall the MongoDB Database Tools`,
    );
  }
}

/** Everything `coffer-agent run` needs; the first missing piece throws. */
export async function preflight(env: NodeJS.ProcessEnv = process.env): Promise<ToolInfo[]> {
  checkZstd();
  return [await checkTool('mongodump', env), await checkTool('mongorestore', env)];
}
