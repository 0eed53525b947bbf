import { loadConfig, statusPathFor } from '../../config/config.js';
import { readStatus } from '../../status.js';
import { parseCommand } from '../args.js';
import { out, type CliIo } from '../io.js';

export const STATUS_HELP = `Usage: coffer-agent status

Shows whether the backup daemon (coffer-agent run) is running, from the status file it keeps
beside the config and named after it (agent.status.json for agent.json; in the config's stateDir
when it has one).`;

function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return s < 120 ? `${s}s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}

export async function statusCommand(
  args: string[],
  io: CliIo,
  configPath: string,
  now = Date.now(),
): Promise<void> {
  const { values } = parseCommand('status', args, {}, { min: 0, max: 0 });
  if (values.help) return out(io, STATUS_HELP);
  const config = await loadConfig(configPath).catch(() => undefined);
  const reading = await readStatus(statusPathFor(configPath, config), now);
  if (reading.state === 'not-running') {
    const why =
      reading.reason === 'stale' && reading.status
        ? ` (last heartbeat ${ago(reading.status.updatedAt, now)})`
        : reading.reason === 'process-gone'
          ? ' (its process has exited)'
          : reading.reason === 'unreadable'
            ? ' (the status file is unreadable)'
            : '';
    out(io, `not running${why}`);
    return;
  }
  const s = reading.status;
  out(io, `running (pid ${s.pid}, version ${s.version}, since ${s.startedAt})`);
  out(io, `server: ${s.connected ? 'connected' : 'disconnected'}${s.server ? ` (${s.server})` : ''}`);
  for (const tool of s.tools ?? []) out(io, `tool: ${tool}`);
  if (s.activity) {
    const p = s.activity.progress;
    out(
      io,
      `${s.activity.kind} of "${s.activity.database}" in progress${p ? `: ${p.percentage}% (${p.current}/${p.estimated ? 'about ' : ''}${p.total} documents${p.collection ? `, ${p.collection}` : ''})` : ''}`,
    );
  } else {
    out(io, 'idle');
  }
  if (s.lastError) out(io, `last error: ${s.lastError}`);
}
