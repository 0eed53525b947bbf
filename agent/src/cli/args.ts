import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { UsageError } from './io.js';

export const GLOBAL_OPTIONS = {
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;

/**
 * Separates the command words (`init`, `db add`, …) from the command's own arguments. Words come
 * first; only --config and --help may precede them.
 */
export function splitCommand(
  argv: string[],
  groups: Record<string, readonly string[]>,
): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  let taking = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--config' && i + 1 < argv.length) {
      rest.push(a, argv[++i]!);
      continue;
    }
    if (a.startsWith('--config=') || a === '--help' || a === '-h') {
      rest.push(a);
      continue;
    }
    const wantsWord = words.length === 0 || (words.length === 1 && Object.hasOwn(groups, words[0]!));
    if (taking && wantsWord && !a.startsWith('-')) {
      words.push(a);
      continue;
    }
    taking = false;
    rest.push(a);
  }
  return { words, rest };
}

/** Strict parseArgs for one command, with --config/--help, turning mistakes into usage errors. */
export function parseCommand<O extends ParseArgsOptionsConfig>(
  command: string,
  args: string[],
  options: O,
  positionals: { min: number; max: number },
) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...GLOBAL_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new UsageError(
      `${command}: ${(e as Error).message.replace(/\. To specify a positional argument.*$/s, '')}`,
      command,
    );
  }
  const n = parsed.positionals.length;
  if (!(parsed.values as { help?: boolean }).help && (n < positionals.min || n > positionals.max)) {
    throw new UsageError(
      n < positionals.min
        ? `${command}: missing argument`
        : `${command}: unexpected argument "${parsed.positionals[positionals.max]}"`,
      command,
    );
  }
  return parsed;
}
