// `coffer-agent run` with the benchmark's stand-ins injected (bench/README.md, "Coffer's ceiling"):
//   node agent-run.mjs --config FILE [--replay-archive /abs/archive] [--discard-restore]
// --replay-archive: every backup streams that recorded mongodump archive instead of running
// mongodump; --discard-restore: every restore's archive goes to a discarding sink, not
// mongorestore. The shipped agent has no such switch: they are options of its pipeline that only
// this script passes, and it says so on stderr whenever one changes a job.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const { runCommand } = require('../../agent/dist/cli/commands/run.js');
const { runBackup } = require('../../agent/dist/pipeline/backup.js');
const { runRestore } = require('../../agent/dist/pipeline/restore.js');
const { AGENT_VERSION } = require('../../agent/dist/runtime/build-info.js');

const { values } = parseArgs({
  options: {
    config: { type: 'string' },
    'replay-archive': { type: 'string' },
    'discard-restore': { type: 'boolean', default: false },
  },
});
if (!values.config)
  throw new Error('usage: agent-run.mjs --config FILE [--replay-archive FILE] [--discard-restore]');
const replay = values['replay-archive'];
const discard = values['discard-restore'];

const pipeline = {
  ...(replay && {
    backup: (opts) => {
      console.warn(`[bench] replaying ${replay} instead of running mongodump`);
      return runBackup({ ...opts, replayArchive: replay });
    },
  }),
  ...(discard && {
    restore: (opts) => {
      console.warn('[bench] the restore goes to a discarding sink, not mongorestore');
      return runRestore({ ...opts, discardArchive: true });
    },
  }),
};

const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
runCommand([], io, values.config, AGENT_VERSION, pipeline).then(
  (code) => (process.exitCode = code),
  (e) => {
    process.stderr.write(`agent-run: ${e?.stack ?? e}\n`);
    process.exitCode = 70;
  },
);
