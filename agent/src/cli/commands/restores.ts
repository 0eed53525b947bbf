import { loadConfig, restorePolicyOf, saveConfig, type RestoresConfig } from '../../config/config.js';
import { parseCommand } from '../args.js';
import { out, UsageError, type CliIo } from '../io.js';

export const RESTORES_HELP = `Usage:
  coffer-agent restores [show]                    the restore policy of this agent
  coffer-agent restores allow|deny                may restores be started from the dashboard
  coffer-agent restores binding required|optional restore only backups bound to the database

These settings live on this host: the Coffer server cannot change them. Defaults: restores are
allowed, and only backups whose file names the database label being restored (written by agents
from format version 2 on) are restored. "binding optional" also restores older backups, which do
not name their label (the database name inside the archive is still checked). Whatever the
setting, a file that names another database label or another backup is refused, and so is a
backup of an empty database over a database that holds data, unless confirmed on the dashboard.
The running agent picks a change up within seconds.`;

function describe(p: RestoresConfig): string[] {
  return [
    `Restores from the dashboard: ${p.allowed ? 'allowed' : 'refused (coffer-agent restores allow)'}`,
    `Backups restored: ${
      p.requireBinding
        ? 'only those bound to the database being restored (older, unbound backups are refused)'
        : 'those bound to the database being restored, and older unbound ones'
    }`,
  ];
}

export async function restoresCommand(
  sub: string | undefined,
  args: string[],
  io: CliIo,
  configPath: string,
): Promise<void> {
  const change = async (set: Partial<RestoresConfig>) => {
    const config = await loadConfig(configPath);
    const restores = { ...restorePolicyOf(config), ...set };
    await saveConfig(configPath, { ...config, restores });
    for (const line of describe(restores)) out(io, line);
  };
  switch (sub ?? 'show') {
    case 'show': {
      const { values } = parseCommand('restores show', args, {}, { min: 0, max: 0 });
      if (values.help) return out(io, RESTORES_HELP);
      for (const line of describe(restorePolicyOf(await loadConfig(configPath)))) out(io, line);
      return;
    }
    case 'allow':
    case 'deny': {
      const { values } = parseCommand(`restores ${sub}`, args, {}, { min: 0, max: 0 });
      if (values.help) return out(io, RESTORES_HELP);
      return change({ allowed: sub === 'allow' });
    }
    case 'binding': {
      const { values, positionals } = parseCommand('restores binding', args, {}, { min: 1, max: 1 });
      if (values.help) return out(io, RESTORES_HELP);
      const mode = positionals[0];
      if (mode !== 'required' && mode !== 'optional')
        throw new UsageError(
          `restores binding: say "required" or "optional", not "${mode}"`,
          'restores binding',
        );
      return change({ requireBinding: mode === 'required' });
    }
    default:
      throw new UsageError(`unknown restores command "${sub}"`);
  }
}
