// Part 6: a small job, side by side and part by part (issue 26, "No idle seconds"). Each round, on
// a database under 10 MiB: plain `mongodump --archive`, then a Coffer backup of it; the backup's
// download through the API plus plain `mongorestore --archive --drop`, then a Coffer restore of it.
// Coffer's times run from the API call to the moment the outcome reaches the user's browser
// socket (the dashboard's live event, not a poll). Each Coffer job is cut into parts from the
// timestamps the agent logs (command received, the phases of its backup or restore, its reports).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { api, newUser, startAgent, startBackup } from './coffer.mjs';
import { loadavg, timed } from './proc.mjs';

const require = createRequire(import.meta.url);
const { io } = require('socket.io-client');

const FINISHED = ['completed', 'failed'];

/** The user's live job events as the dashboard receives them: the moment each job's outcome arrived. */
async function watchOutcomes(base, token) {
  const socket = io(base, { path: '/api/socket.io', auth: { token }, transports: ['websocket'] });
  const outcomes = new Map();
  const waiters = new Map();
  const record = (idField) => (event) => {
    const id = event[idField];
    if (!FINISHED.includes(event.status) || outcomes.has(id)) return;
    outcomes.set(id, { status: event.status, error: event.error, atMs: Date.now() });
    waiters.get(id)?.();
  };
  socket.on('backupProgress', record('backupId'));
  socket.on('restoreProgress', record('restoreId'));
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  return {
    async outcome(id, timeoutMs) {
      if (!outcomes.has(id))
        await new Promise((resolve, reject) => {
          const timer = setTimeout(
            () =>
              reject(new Error(`no outcome of ${id} reached the browser socket in ${timeoutMs / 1000} s`)),
            timeoutMs,
          );
          waiters.set(id, () => {
            clearTimeout(timer);
            resolve();
          });
        });
      return outcomes.get(id);
    },
    close: () => socket.close(),
  };
}

/** The agent's log lines about one job, each with its time in ms. */
function jobLines(agentDir, jobId) {
  return fs
    .readFileSync(path.join(agentDir, 'agent.log'), 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        const entry = JSON.parse(line);
        return entry.jobId === jobId ? [{ ...entry, atMs: Date.parse(entry.time) }] : [];
      } catch {
        return [];
      }
    });
}

function lineOf(lines, msg) {
  const found = lines.find((l) => l.msg === msg);
  if (!found) throw new Error(`the agent logged no "${msg}" for job ${lines[0]?.jobId ?? '?'}`);
  return found;
}

/**
 * Consecutive milestones → parts: each part is the time from the milestone before it, in ms of the
 * components' one clock; the first milestone is the API call, the last the outcome at the browser.
 */
function parts(milestones) {
  return milestones.slice(1).map((m, i) => ({ part: m.part, ms: m.at - milestones[i].at }));
}

/**
 * A backup's parts. Its outcome is recorded when storage has the file (before the upload is
 * answered), so the last part runs from the summary to the browser's event. Beside the parts, not
 * in their sum: the database check (it runs while mongodump does) and the agent's answer to its
 * upload (after the outcome was recorded).
 */
function backupParts(agentDir, id, askedAtMs, outcome) {
  const lines = jobLines(agentDir, id);
  const received = lineOf(lines, 'command received').atMs;
  const done = lineOf(lines, 'backup completed');
  const jobStart = done.atMs - done.durationMs;
  const toolStarted = jobStart + done.setupMs;
  const exited = toolStarted + done.dumpMs;
  const summarized = exited + done.summaryMs;
  return {
    parts: parts([
      { part: 'start', at: askedAtMs },
      { part: 'API call and command delivery', at: received },
      { part: 'agent start (the upload opened)', at: jobStart },
      { part: 'mongodump found and started', at: toolStarted },
      { part: 'mongodump, streamed through zstd, encryption and the upload', at: exited },
      { part: 'summary report (backup:summary acknowledged)', at: summarized },
      { part: "end of the upload → stored, recorded, the outcome at the user's browser", at: outcome.atMs },
    ]),
    beside: {
      databaseCheckMs: done.checkMs,
      uploadAnsweredMs: done.atMs - summarized,
    },
  };
}

/** A restore's parts; the last is the report, its recording and the event to the browser. */
function restoreParts(agentDir, id, askedAtMs, outcome) {
  const lines = jobLines(agentDir, id);
  const received = lineOf(lines, 'command received').atMs;
  const downloaded = lineOf(lines, 'backup file downloaded');
  const finished = lineOf(lines, 'restore finished');
  const restoreStart = finished.atMs - finished.durationMs;
  const checked = restoreStart + finished.checkMs;
  return {
    parts: parts([
      { part: 'start', at: askedAtMs },
      { part: 'API call and command delivery', at: received },
      {
        part: 'agent start (policy, temporary folder; restore:started not waited for)',
        at: downloaded.atMs - downloaded.durationMs,
      },
      { part: 'download, every chunk authenticated as it arrives', at: downloaded.atMs },
      { part: 'end of the verification', at: restoreStart },
      { part: 'checks before anything changes (policy, listing the target)', at: checked },
      { part: 'drop + mongorestore (the one decrypting pass)', at: checked + finished.archiveMs },
      { part: 'dropping collections the backup lacks', at: finished.atMs },
      { part: "report → recorded → the outcome at the user's browser", at: outcome.atMs },
    ]),
    beside: { reportAcknowledgedMs: lineOf(lines, 'restore reported').atMs - finished.atMs },
  };
}

/** GET /api/backups/{id}/download into `file`, as a user saves a backup: its wall time. */
async function timedDownload(base, user, backupId, file) {
  const started = performance.now();
  const res = await fetch(`${base}/api/backups/${backupId}/download`, {
    headers: { authorization: `Bearer ${user.token}` },
    signal: AbortSignal.timeout(120_000),
  });
  if (res.status !== 200) throw new Error(`download: ${res.status} ${await res.text()}`);
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return { ms: performance.now() - started, bytes: fs.statSync(file).size };
}

/** Waits (up to 30 s) until the agent has logged each [jobId, message]. */
async function untilLogged(agentDir, wanted) {
  const deadline = Date.now() + 30_000;
  while (!wanted.every(([id, msg]) => jobLines(agentDir, id).some((l) => l.msg === msg))) {
    if (Date.now() > deadline) throw new Error(`the agent never logged ${JSON.stringify(wanted)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One round: plain dump, Coffer backup, plain download + restore, Coffer restore. */
async function round({ base, uri, db, work, index, timeoutMs }) {
  const archive = path.join(work, 'small.archive');
  const load0 = loadavg();
  const dump = await timed('mongodump', [`--uri=${uri}`, `--db=${db}`, '--archive', '--quiet'], {
    stdout: archive,
  });

  const user = await newUser(base);
  const agent = await startAgent(base, user, {
    dir: path.join(work, `agent-${index}`),
    label: 'small',
    uri: uri + db,
  });
  const watcher = await watchOutcomes(base, user.token);
  try {
    const asked = await startBackup(base, user, 'small');
    const backupId = asked.backup._id;
    const backupOutcome = await watcher.outcome(backupId, timeoutMs);
    if (backupOutcome.status !== 'completed')
      throw new Error(`backup ${backupId} failed: ${backupOutcome.error}; see ${agent.dir}/agent.log`);
    const backupMs = backupOutcome.atMs - asked.askedAtMs;

    const download = await timedDownload(base, user, backupId, path.join(work, 'small.coffer'));
    const restore = await timed('mongorestore', [`--uri=${uri}`, '--archive', '--drop', '--quiet'], {
      stdin: archive,
    });

    const restoreAskedAtMs = Date.now();
    const res = await api(base, 'POST', `/api/backups/${backupId}/restore`, {
      token: user.token,
      body: { databaseName: 'small' },
    });
    if (res.status !== 202) throw new Error(`POST restore: ${res.status} ${JSON.stringify(res.body)}`);
    const restoreId = res.body.restore._id;
    const restoreOutcome = await watcher.outcome(restoreId, timeoutMs);
    if (restoreOutcome.status !== 'completed')
      throw new Error(`restore ${restoreId} failed: ${restoreOutcome.error}; see ${agent.dir}/agent.log`);
    const cofferRestoreMs = restoreOutcome.atMs - restoreAskedAtMs;
    // The agent logs its reports' answers a moment after the browser may have heard the outcome.
    await untilLogged(agent.dir, [[restoreId, 'restore reported']]);
    return {
      load: (load0 + loadavg()) / 2,
      archiveBytes: fs.statSync(archive).size,
      fileBytes: download.bytes,
      backup: {
        plainMs: dump.ms,
        cofferMs: backupMs,
        ...backupParts(agent.dir, backupId, asked.askedAtMs, backupOutcome),
      },
      restore: {
        plainMs: download.ms + restore.ms,
        downloadMs: download.ms,
        mongorestoreMs: restore.ms,
        cofferMs: cofferRestoreMs,
        ...restoreParts(agent.dir, restoreId, restoreAskedAtMs, restoreOutcome),
      },
    };
  } finally {
    watcher.close();
    await agent.stop();
  }
}

/** `rounds` rounds on `db` (already seeded, under 10 MiB) of the server at `uri`. */
export async function measureSmallJob({ base, uri, db, work, rounds, log = () => undefined }) {
  fs.mkdirSync(work, { recursive: true });
  const out = [];
  for (let i = 0; i < rounds; i++) {
    const r = await round({ base, uri, db, work, index: i, timeoutMs: 10 * 60_000 });
    log(
      `    round ${i + 1}: backup ${(r.backup.cofferMs / 1000).toFixed(2)} s vs mongodump ${(r.backup.plainMs / 1000).toFixed(2)} s; ` +
        `restore ${(r.restore.cofferMs / 1000).toFixed(2)} s vs download + mongorestore ${(r.restore.plainMs / 1000).toFixed(2)} s (load ${r.load.toFixed(1)})`,
    );
    out.push(r);
  }
  return out;
}
