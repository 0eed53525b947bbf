import { loadConfig, saveConfig, updatesAllowed } from '../../config/config.js';
import { parseCommand } from '../args.js';
import { out, UsageError, type CliIo } from '../io.js';

export const CONFIG_HELP = `Usage:
  coffer-agent config updates [on|off]

updates: whether the Coffer server may update this agent ('Check for Updates' on the dashboard,
and the service's privileged update step). With 'off' the agent refuses every update the server
asks for and reports why to the dashboard and the audit log; \`sudo coffer-agent update\` run here
still works. Without on|off it shows the setting. A running agent picks the change up by itself.`;

export async function configCommand(
  sub: string | undefined,
  args: string[],
  io: CliIo,
  configPath: string,
): Promise<void> {
  if (sub !== 'updates') {
    if (sub === undefined && args.some((a) => a === '--help' || a === '-h')) return out(io, CONFIG_HELP);
    throw new UsageError(sub ? `unknown config setting "${sub}"` : 'config: missing setting (updates)');
  }
  const { values, positionals } = parseCommand('config updates', args, {}, { min: 0, max: 1 });
  if (values.help) return out(io, CONFIG_HELP);
  const config = await loadConfig(configPath);
  const wanted = positionals[0];
  if (wanted === undefined) {
    out(io, `updates: ${updatesAllowed(config) ? 'on' : 'off'}`);
    return;
  }
  if (wanted !== 'on' && wanted !== 'off')
    throw new UsageError(`config updates: expected on or off, not "${wanted}"`, 'config updates');
  await saveConfig(configPath, { ...config, updates: wanted });
  out(
    io,
    wanted === 'off'
      ? `updates: off — this agent refuses the updates the server asks for (saved in ${configPath})`
      : `updates: on — the server may update this agent again (saved in ${configPath})`,
  );
}
