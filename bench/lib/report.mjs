// Renders results.json as the markdown of docs/benchmarks.md. Hand-written notes below the
// NOTES_MARKER line of an existing docs/benchmarks.md are kept when the file is rewritten.
import fs from 'node:fs';
import { median } from './proc.mjs';

export const NOTES_MARKER =
  '<!-- hand-written notes below this line are kept when bench/run.mjs rewrites the file -->';

const MiB = 1048576;
const s = (ms) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`);
const mib = (b) => (b === undefined ? '–' : `${(b / MiB).toFixed(1)} MiB`);
const kib2mib = (kb) => (kb === undefined || !Number.isFinite(kb) ? '–' : `${(kb / 1024).toFixed(0)} MiB`);
const x = (r) => (r === undefined || !Number.isFinite(r) ? '–' : `${r.toFixed(2)}×`);
const load = (l) => (l === undefined ? '–' : l.toFixed(1));
const met = (ok) => (ok === undefined ? 'not measured' : ok ? '**met**' : '**not met**');
const cpu = (ms) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`);

function table(head, rows) {
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** The verdicts against the issue's targets, from the measured numbers. */
export function verdicts(r) {
  const v = {};
  if (r.rawDump && r.cofferBackup) v.backupRatio = r.cofferBackup.ms / r.rawDump.ms;
  if (r.gzipDump && r.cofferBackup) v.gzipSpeedup = r.gzipDump.ms / r.cofferBackup.ms;
  if (r.gzipDump && r.cofferBackup) v.sizeRatio = r.cofferBackup.storedBytes / r.gzipDump.bytes;
  if (r.rawRestore && r.cofferRestore) v.restoreRatio = r.cofferRestore.ms / r.rawRestore.ms;
  if (r.smallBackup && r.cofferBackup)
    v.memoryRatio = r.cofferBackup.memory.hwmKb / r.smallBackup.memory.hwmKb;
  return v;
}

export function renderReport(r) {
  const e = r.env;
  const v = verdicts(r);
  const out = [];
  const seedMain = r.seed.main;
  out.push('# Benchmarks', '');
  out.push(
    'Coffer against the tools a customer would otherwise use, measured side by side in one run on one',
    'machine (`bench/`, see [bench/README.md](../bench/README.md) for what each number means). The',
    'machine is shared and noisy: compare the ratios within a run, not absolute times across runs.',
    '',
  );
  out.push(`## Run of ${e.date.slice(0, 10)}`, '');
  out.push(
    `- Command: \`${r.command}\` (from the repository root; \`bash bench/run.sh ${r.sizeMb}\` is the same)`,
  );
  out.push(
    `- Machine: ${e.nproc} CPUs (${e.cpu}), ${e.memoryGiB.toFixed(1)} GiB memory, Linux ${e.kernel}; 1-minute load average ${e.loadStart[0].toFixed(1)} at the start, ${e.loadEnd?.[0]?.toFixed(1) ?? '?'} at the end (other work shares the machine)`,
  );
  out.push(
    `- Versions: Node ${e.node}, mongo-tools ${e.mongoTools}, FerretDB ${e.ferretdb} (SQLite backend), ${e.restic}, ${e.gzip}; coffer-agent ${e.agentVersion} (zstd level ${e.zstdLevel}), commit ${e.commit}`,
  );
  if (seedMain)
    out.push(
      `- Database: \`bench_main\`, ${seedMain.documents.toLocaleString('en-US')} documents, ${mib(seedMain.bytes)} of BSON in 3 collections (${Object.entries(
        seedMain.counts ?? {},
      )
        .map(([k, n]) => `${k} ${n.toLocaleString('en-US')}`)
        .join(
          ', ',
        )}) with 3 secondary indexes; ${seedMain.reused ? 'seeded by an earlier run' : `seeded in ${s(seedMain.ms)} (${(seedMain.bytes / MiB / (seedMain.ms / 1000)).toFixed(1)} MiB/s into FerretDB)`}`,
    );
  out.push('');

  out.push('### Targets', '');
  const rows = [];
  if (v.backupRatio !== undefined)
    rows.push([
      'Coffer backup within 1.10× raw `mongodump --archive`',
      `${x(v.backupRatio)} (${s(r.cofferBackup.ms)} vs ${s(r.rawDump.ms)})`,
      met(v.backupRatio <= 1.1),
    ]);
  if (v.gzipSpeedup !== undefined)
    rows.push([
      'Coffer backup at least 2× faster than `mongodump --archive --gzip`',
      `${x(v.gzipSpeedup)} faster (${s(r.cofferBackup.ms)} vs ${s(r.gzipDump.ms)})`,
      met(v.gzipSpeedup >= 2),
    ]);
  if (v.sizeRatio !== undefined)
    rows.push([
      "Coffer's stored file no larger than the `--gzip` archive",
      `${x(v.sizeRatio)} (${mib(r.cofferBackup.storedBytes)} vs ${mib(r.gzipDump.bytes)})`,
      met(v.sizeRatio <= 1),
    ]);
  if (v.restoreRatio !== undefined)
    rows.push([
      'Coffer restore within 1.10× raw `mongorestore --archive --drop`',
      `${x(v.restoreRatio)} (${s(r.cofferRestore.ms)} vs ${s(r.rawRestore.ms)})`,
      met(v.restoreRatio <= 1.1),
    ]);
  if (v.memoryRatio !== undefined)
    rows.push([
      'Agent memory flat as the database grows (peak RSS of the larger within 1.25× of the smaller)',
      `${x(v.memoryRatio)} (${kib2mib(r.cofferBackup.memory.hwmKb)} at ${r.sizeMb} MiB vs ${kib2mib(r.smallBackup.memory.hwmKb)} at ${r.memoryMb} MiB)`,
      met(v.memoryRatio <= 1.25),
    ]);
  rows.push(...throughputTargets(r));
  out.push(table(['target', 'measured', 'verdict'], rows), '');

  if (r.rawDump) {
    out.push(`### 1. Backup of the ${r.sizeMb} MiB database`, '');
    out.push(
      'Run back to back in this order. Coffer is timed from `POST /api/backups` to the first poll (every 200 ms) of',
      '`GET /api/backups/{id}` that says `completed`: command delivery, `mongodump`, zstd, encryption, upload',
      'through the gateway and storage, and the completion report. CPU is user + system time: of the tool for',
      'the raw runs; of the agent process itself plus the `mongodump` it ran for Coffer. FerretDB CPU is what the',
      'database server spent meanwhile (it serves the dump; other users of the machine are not in it).',
      '',
    );
    const cb = r.cofferBackup;
    out.push(
      table(
        ['run', 'time', 'vs raw mongodump', 'output', 'CPU', 'FerretDB CPU', 'load avg'],
        [
          [
            '`mongodump --archive > file`',
            s(r.rawDump.ms),
            '1.00×',
            mib(r.rawDump.bytes),
            cpu(r.rawDump.cpuMs),
            cpu(r.rawDump.serverCpuMs),
            load(r.rawDump.load),
          ],
          [
            'Coffer backup (agent → gateway → storage)',
            s(cb.ms),
            x(cb.ms / r.rawDump.ms),
            `${mib(cb.storedBytes)} stored`,
            `${cpu(cb.agentCpuMs)} agent + ${cpu(cb.toolCpuMs)} mongodump`,
            cpu(cb.serverCpuMs),
            load(cb.load),
          ],
          [
            '`mongodump --archive --gzip > file`',
            s(r.gzipDump.ms),
            x(r.gzipDump.ms / r.rawDump.ms),
            mib(r.gzipDump.bytes),
            cpu(r.gzipDump.cpuMs),
            cpu(r.gzipDump.serverCpuMs),
            load(r.gzipDump.load),
          ],
        ],
      ),
      '',
    );
    if (r.compression) {
      out.push(
        'Compressed size of the same raw archive (node:zlib, CPU time of this process): what the level choice',
        'costs in size.',
        '',
      );
      out.push(
        table(
          ['compression', 'size', 'vs raw archive', 'CPU'],
          r.compression.map((c) => [
            `${c.kind} level ${c.level}${c.kind === 'zstd' && c.level === e.zstdLevel ? ' (the agent)' : ''}`,
            mib(c.bytes),
            `${((c.bytes / r.rawDump.bytes) * 100).toFixed(1)} %`,
            cpu(c.cpuMs),
          ]),
        ),
        '',
      );
    }
  }

  if (r.rawRestore) {
    out.push(`### 2. Restore of the ${r.sizeMb} MiB database`, '');
    out.push(
      'Both replace the collections of `bench_main` with the backup. Coffer is timed from',
      '`POST /api/backups/{id}/restore` to the restore history saying `completed`: download to a private',
      'temporary file, verification of every chunk and of the archive, then decrypt → zstd → `mongorestore --drop`.',
      'The restore runs in a fresh `coffer-agent run` process of the agent that made the backup.',
      '',
    );
    const cr = r.cofferRestore;
    out.push(
      table(
        ['run', 'time', 'vs raw mongorestore', 'documents', 'CPU', 'FerretDB CPU', 'load avg', 'peak RSS'],
        [
          [
            '`mongorestore --archive --drop < file`',
            s(r.rawRestore.ms),
            '1.00×',
            Object.values(r.rawRestore.counts)
              .reduce((a, b) => a + b, 0)
              .toLocaleString('en-US'),
            cpu(r.rawRestore.cpuMs),
            cpu(r.rawRestore.serverCpuMs),
            load(r.rawRestore.load),
            kib2mib(r.rawRestore.maxRssKb),
          ],
          [
            'Coffer restore (gateway → agent)',
            s(cr.ms),
            x(cr.ms / r.rawRestore.ms),
            `${cr.record.documentsRestored.toLocaleString('en-US')} restored, ${cr.record.documentsFailed} failed`,
            `${cpu(cr.agentCpuMs)} agent + ${cpu(cr.toolCpuMs)} mongorestore`,
            cpu(cr.serverCpuMs),
            load(cr.load),
            `${kib2mib(cr.memory?.hwmKb)} (agent)`,
          ],
        ],
      ),
      '',
    );
  }

  if (r.stage) {
    out.push(`### 3. The encrypt+compress stage alone, ${r.stageMb} MiB input`, '');
    out.push(
      `Each tool reads the same file from the page cache; medians of ${r.stageRounds} interleaved rounds (the order rotates`,
      'each round). Coffer is `createEncryptor` (zstd → AES-256-GCM chunks) in its own Node process, with the',
      'V8 options the agent ships with (`agent/src/runtime/exec-argv.ts`), writing the encrypted file to disk; restic is `restic backup --stdin --stdin-filename` into a fresh repository',
      '(format 2: compression, deduplication, encryption) with `RESTIC_PASSWORD` set; gzip is `gzip -6 -c`,',
      'the compression `mongodump --gzip` adds; `cat FILE > /dev/null` is the ceiling for reading the file.',
      '"Coffer ÷ tool" is the throughput ratio: above 1 means Coffer is faster.',
      '',
    );
    const label = {
      repeated: `the real \`mongodump\` archive of \`bench_main\` repeated to ${r.stageMb} MiB`,
      distinct: `${r.stageMb} MiB of distinct generated documents in mongodump's archive format`,
    };
    const names = {
      cat: '`cat FILE > /dev/null`',
      coffer: 'Coffer encrypt+compress',
      gzip: '`gzip -6`',
      restic: '`restic backup --stdin`',
    };
    for (const key of ['distinct', 'repeated']) {
      const st = r.stage[key];
      if (!st) continue;
      out.push(
        `Input: ${label[key]}${key === 'repeated' ? ` (${st.copies.toFixed(1)} copies: restic deduplicates every copy after the first, so its numbers here flatter it)` : ''}.`,
        '',
      );
      const c = st.tools.coffer;
      out.push(
        table(
          ['tool', 'time (median)', 'throughput', 'Coffer ÷ tool', 'CPU', 'peak RSS', 'output'],
          ['cat', 'gzip', 'restic', 'coffer'].map((t) => {
            const m = st.tools[t];
            return [
              names[t],
              s(m.ms),
              `${m.mibPerS.toFixed(0)} MiB/s`,
              t === 'coffer' ? '1.00×' : x(c.mibPerS / m.mibPerS),
              cpu(m.cpuMs),
              kib2mib(m.maxRssKb),
              t === 'cat' ? '–' : mib(m.outBytes),
            ];
          }),
        ),
        '',
      );
    }
  }

  if (r.smallBackup && r.cofferBackup) {
    out.push('### 4. Agent memory', '');
    out.push(
      'VmHWM (peak resident set) of the `coffer-agent run` process from `/proc/<pid>/status`, read after it',
      'connected and again when the backup completed; a fresh agent process for each database. `mongodump` is a',
      'separate process and not included.',
      '',
    );
    out.push(
      table(
        [
          'database',
          'documents',
          'backup time',
          'stored',
          'peak RSS after connecting',
          'peak RSS at end of backup',
        ],
        [
          [`${r.memoryMb} MiB`, r.seed.small, r.smallBackup],
          [`${r.sizeMb} MiB`, r.seed.main, r.cofferBackup],
        ].map(([name, seed, b]) => [
          name,
          seed?.documents?.toLocaleString('en-US') ?? '–',
          s(b.ms),
          mib(b.storedBytes),
          kib2mib(b.idleMemory.hwmKb),
          kib2mib(b.memory.hwmKb),
        ]),
      ),
      '',
    );
  }
  if (r.ceiling?.length) out.push(...renderCeiling(r));
  if (r.smallJob?.length) out.push(...renderSmallJob(r.smallJob));
  return out.join('\n');
}

/**
 * Issue 26's targets, from parts 3, 5 and 6 of the same run: the stage against gzip, the restore
 * against the decrypt stage alone, the hop's CPU against the encrypt stage's, and the small jobs.
 */
export function throughputTargets(r) {
  const rows = [];
  const distinct = r.stage?.distinct ?? r.stage?.repeated;
  if (distinct) {
    const ratio = distinct.tools.coffer.mibPerS / distinct.tools.gzip.mibPerS;
    rows.push([
      'The encrypt stage toward 8× the throughput of `gzip -6` (part 3)',
      `${x(ratio)} (${distinct.tools.coffer.mibPerS.toFixed(0)} vs ${distinct.tools.gzip.mibPerS.toFixed(0)} MiB/s)`,
      met(ratio >= 8),
    ]);
  }
  const largest = r.ceiling?.toSorted((a, b) => b.bytes - a.bytes)[0];
  for (const run of largest?.runs ?? []) {
    const size = `${(largest.bytes / MiB).toFixed(0)} MiB`;
    const restore = largest.alone.decrypt.ms / run.restore.ms;
    rows.push([
      `Restore ≥ 0.8× the decrypt stage alone (part 5, ${size}, ${run.backend})`,
      `${x(restore)} (${s(run.restore.ms)} vs ${s(largest.alone.decrypt.ms)})`,
      met(restore >= 0.8),
    ]);
    const hop = (run.backup.cpuMs.gateway + run.backup.cpuMs.storage) / largest.alone.encrypt.cpuMs;
    const bound = run.backend === 's3' ? 0.4 : 0.25;
    rows.push([
      `Gateway + storage CPU ≤ ${bound}× the encrypt stage's (part 5, ${size}, ${run.backend})`,
      `${x(hop)} (${cpu(run.backup.cpuMs.gateway + run.backup.cpuMs.storage)} vs ${cpu(largest.alone.encrypt.cpuMs)})`,
      met(hop <= bound),
    ]);
  }
  if (r.smallJob?.length) {
    for (const job of ['backup', 'restore']) {
      const ratio = median(r.smallJob.map((round) => round[job].cofferMs / round[job].plainMs));
      const plain = job === 'backup' ? '`mongodump --archive`' : 'download + `mongorestore --archive`';
      rows.push([
        `A small ${job} within 1.5× ${plain} (part 6, median of ${r.smallJob.length})`,
        x(ratio),
        met(ratio <= 1.5),
      ]);
    }
  }
  return rows;
}

const msText = (ms) => `${Math.round(ms)} ms`;

/** Part 6: a small job's ratios per round, and its parts (medians over the rounds). */
export function renderSmallJob(rounds) {
  const out = ['### 6. A small job, side by side and part by part', ''];
  out.push(
    table(
      ['round', 'load', 'backup', 'mongodump', 'ratio', 'restore', 'download + mongorestore', 'ratio'],
      rounds.map((r, i) => [
        String(i + 1),
        load(r.load),
        msText(r.backup.cofferMs),
        msText(r.backup.plainMs),
        x(r.backup.cofferMs / r.backup.plainMs),
        msText(r.restore.cofferMs),
        `${msText(r.restore.downloadMs)} + ${msText(r.restore.mongorestoreMs)}`,
        x(r.restore.cofferMs / r.restore.plainMs),
      ]),
    ),
    '',
  );
  for (const job of ['backup', 'restore']) {
    const names = rounds[0][job].parts.map((p) => p.part);
    out.push(
      table(
        [`${job}: part (median of ${rounds.length})`, 'time'],
        [
          ...names.map((name, i) => [name, msText(median(rounds.map((r) => r[job].parts[i].ms)))]),
          [
            `**API call → outcome at the browser**`,
            `**${msText(median(rounds.map((r) => r[job].cofferMs)))}**`,
          ],
          ...Object.keys(rounds[0][job].beside ?? {}).map((k) => [
            `beside, not in the sum: ${k}`,
            msText(median(rounds.map((r) => r[job].beside[k]))),
          ]),
        ],
      ),
      '',
    );
  }
  return out;
}

/** Part 5: the whole path without the database, against the stage alone on the same file. */
export function renderCeiling(r) {
  const out = [];
  const rate = (bytes, ms) => `${(bytes / MiB / (ms / 1000)).toFixed(0)} MiB/s`;
  const perGiB = (ms, bytes) =>
    Number.isFinite(ms) ? `${((ms / 1000) * (1024 / (bytes / MiB))).toFixed(1)} s` : '–';
  out.push("### 5. Coffer's ceiling without the database (replayed archive)", '');
  out.push(
    "A recorded archive in mongodump's format (distinct documents) is replayed as the agent's dump",
    "(the pipeline's `replayArchive`, passed by `bench/lib/agent-run.mjs` only) and goes the real way: agent → gateway → storage, on a",
    'fresh stack per storage backend. The restore comes back the real way too (download to a private',
    'temporary file, verification of every chunk and of the archive, then decrypt → zstd) into a',
    'discarding sink standing for mongorestore (`discardArchive`). Times are trigger →',
    '`completed` as the user sees them (200 ms polling). "Stage alone" is `createEncryptor` (backup) and',
    '`createDecryptor` (restore) on the same file in their own processes, measured just before. The agent',
    'and the stage run with the V8 options the agent ships with (`agent/src/runtime/exec-argv.ts`).',
    'CPU is per GiB of archive, per process.',
    '',
  );
  const rows = [];
  for (const c of r.ceiling) {
    const size = `${(c.bytes / MiB).toFixed(0)} MiB`;
    rows.push([
      size,
      'stage alone: encrypt',
      rate(c.bytes, c.alone.encrypt.ms),
      '1.00×',
      `${perGiB(c.alone.encrypt.cpuMs, c.bytes)} (process)`,
      kib2mib(c.alone.encrypt.maxRssKb),
      mib(c.alone.fileBytes),
    ]);
    for (const run of c.runs) {
      const b = run.backup;
      rows.push([
        size,
        `backup, ${run.backend} backend`,
        rate(c.bytes, b.ms),
        x(c.alone.encrypt.ms / b.ms),
        Object.entries(b.cpuMs)
          .map(([n, ms]) => `${n} ${perGiB(ms, c.bytes)}`)
          .join(', '),
        Object.entries(run.peakKb)
          .map(([n, kb]) => `${n} ${kib2mib(kb)}`)
          .join(', '),
        mib(run.storedBytes),
      ]);
    }
    rows.push([
      size,
      'stage alone: decrypt',
      rate(c.bytes, c.alone.decrypt.ms),
      '1.00×',
      `${perGiB(c.alone.decrypt.cpuMs, c.bytes)} (process)`,
      kib2mib(c.alone.decrypt.maxRssKb),
      '–',
    ]);
    for (const run of c.runs) {
      const b = run.restore;
      rows.push([
        size,
        `restore, ${run.backend} backend`,
        rate(c.bytes, b.ms),
        x(c.alone.decrypt.ms / b.ms),
        Object.entries(b.cpuMs)
          .map(([n, ms]) => `${n} ${perGiB(ms, c.bytes)}`)
          .join(', '),
        '(as above: peaks over both jobs)',
        `${(b.documents ?? 0).toLocaleString('en-US')} documents`,
      ]);
    }
  }
  out.push(
    table(
      ['archive', 'run', 'throughput', 'ratio to the stage alone', 'CPU per GiB', 'peak RSS', 'stored'],
      rows,
    ),
    '',
  );
  return out;
}

/** The report plus the notes kept from an existing file. */
export function withKeptNotes(report, file) {
  let notes = `${NOTES_MARKER}\n`;
  if (fs.existsSync(file)) {
    const old = fs.readFileSync(file, 'utf8');
    const at = old.indexOf(NOTES_MARKER);
    if (at >= 0) notes = old.slice(at);
  }
  return `${report}\n${notes}`;
}
