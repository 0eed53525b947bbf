// A verified backup (issue 20): the backup's file restored into a scratch database the agent
// names, creates and drops, then compared per collection with the summary recorded while the
// backup streamed through the agent (digest.ts): document count, index definitions, digest. The
// restore is the ordinary one (runRestore, with its verification of the file), mapped from the
// source database to the scratch database with mongorestore's nsFrom/nsTo.
import { randomBytes } from 'node:crypto';
import type { MongoClient } from 'mongodb';
import type { BackupSummary, VerificationChecked, VerificationDifference } from '@coffer/contracts';
import { parseMongoUri } from '../config/uri.js';
import { canonicalIndexes, DocumentDigest, firstDifference, indexCount } from './digest.js';
import { PipelineError } from './errors.js';
import { listCollections, withClient } from './mongo.js';
import type { ProgressListener } from './progress.js';
import { runRestore, type RestoreOptions, type RestoreResult } from './restore.js';

/** Every scratch database starts so: a name the agent made, never one a user chose. */
export const SCRATCH_PREFIX = 'coffer_verify_';

export interface VerifyOptions {
  /** The database the backup is of (the agent's entry for its label). */
  source: { uri: string; db: string; label: string };
  /** A separate MongoDB for verifications (`coffer-agent db verify-target`); default the source's server. */
  targetUri?: string;
  /** The backup's encrypted file. */
  file: string;
  masterKey: Buffer;
  /** The summary recorded when the backup was made. */
  expected: BackupSummary;
  /** Names the scratch database (its last 8 characters, plus randomness). */
  jobId: string;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Passed through to the restore: the file verified while it downloaded, the agent's policy. */
  verified?: RestoreOptions['verified'];
  guard?: RestoreOptions['guard'];
  /** The restore to run (default runRestore). */
  restore?: (opts: RestoreOptions) => Promise<RestoreResult>;
}

export interface VerifyResult {
  /** True when every collection matched. */
  verified: boolean;
  checked: VerificationChecked;
  /** The first difference, when one was found. */
  difference?: VerificationDifference;
  /** The scratch database used (and dropped). */
  scratchDb: string;
  durationMs: number;
}

const refuse = (label: string, why: string) =>
  new PipelineError('REFUSED', `Refusing to verify "${label}": ${why}`);

/** Hosts as a set-like key: the order of a seed list does not make another server. */
function serverKey(uri: string): string {
  const parsed = parseMongoUri(uri);
  return `${parsed.scheme}://${parsed.hosts
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .map((h) => (parsed.scheme === 'mongodb' && !/:\d+$/.test(h) ? `${h}:27017` : h))
    .sort()
    .join(',')}`;
}

/**
 * A verification target is refused when it is the database itself: the same servers and the
 * database the label backs up named in its path. On the same servers otherwise it is allowed,
 * since the agent restores only into a scratch database it names (SCRATCH_PREFIX) and finds empty.
 * Returns the reason, or undefined when the target may be used.
 */
export function verifyTargetProblem(
  source: { uri: string; db: string },
  targetUri: string,
): string | undefined {
  const target = parseMongoUri(targetUri);
  if (serverKey(targetUri) === serverKey(source.uri) && target.database === source.db)
    return `that connection string names the database itself ("${source.db}" on the same server). Give a server (and, if you like, another database for authentication) to restore a scratch copy on; the agent never restores a verification into the database it backs up.`;
  return undefined;
}

/** A scratch database name no one chose: the job's id end and 6 random hex digits (≤ 28 characters). */
export function scratchName(jobId: string): string {
  return `${SCRATCH_PREFIX}${jobId.slice(-8)}${randomBytes(3).toString('hex')}`;
}

/** The restored collections as a summary: counts and digests from the raw BSON, index definitions. */
export async function summarizeDatabase(client: MongoClient, db: string): Promise<BackupSummary> {
  const out: BackupSummary = [];
  for (const c of await listCollections(client, db)) {
    if (c.type === 'view') continue;
    const coll = client.db(db).collection(c.name);
    const digest = new DocumentDigest();
    // raw: the documents as the server holds them, byte for byte, as the archive carried them.
    for await (const doc of coll.find({}, { raw: true })) digest.addDocument(doc as unknown as Buffer);
    const indexes = canonicalIndexes(await coll.listIndexes().toArray());
    out.push({ name: c.name, documents: digest.count, digest: digest.hex(), indexes });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Restores the file into a scratch database, compares, and drops the scratch database whatever happened. */
export async function runVerification(opts: VerifyOptions): Promise<VerifyResult> {
  const started = Date.now();
  const { source } = opts;
  const uri = opts.targetUri ?? source.uri;
  if (opts.targetUri) {
    const problem = verifyTargetProblem(source, opts.targetUri);
    if (problem) throw refuse(source.label, problem);
  }
  const scratchDb = scratchName(opts.jobId);
  if (scratchDb === source.db)
    throw refuse(source.label, 'the scratch database would be the database itself.');
  const existing = await withClient(uri, source.label, (c) => listCollections(c, scratchDb));
  if (existing.length)
    throw refuse(
      source.label,
      `a database named "${scratchDb}" already exists on the target. Nothing was changed.`,
    );
  let outcome: VerifyResult;
  try {
    outcome = await restoreAndCompare(opts, uri, scratchDb, started);
  } catch (e) {
    await dropScratch(uri, source.label, scratchDb);
    throw e;
  }
  // Only this database: the agent named it and found it empty before restoring into it. A drop
  // that fails after a completed comparison fails the verification, so the name is reported.
  if (!(await dropScratch(uri, source.label, scratchDb)))
    throw new PipelineError(
      'DB_UNREACHABLE',
      `The verification of "${source.label}" ran, but its scratch database "${scratchDb}" could not be dropped: drop it by hand.`,
    );
  return outcome;
}

function dropScratch(uri: string, label: string, scratchDb: string): Promise<boolean> {
  return withClient(uri, label, (c) => c.db(scratchDb).dropDatabase()).then(
    () => true,
    () => false,
  );
}

async function restoreAndCompare(
  opts: VerifyOptions,
  uri: string,
  scratchDb: string,
  started: number,
): Promise<VerifyResult> {
  const { source } = opts;
  const restored = await (opts.restore ?? runRestore)({
    uri,
    dbName: scratchDb,
    sourceDb: source.db,
    label: source.label,
    file: opts.file,
    masterKey: opts.masterKey,
    dropExtraCollections: false,
    ...(opts.verified ? { verified: opts.verified } : {}),
    ...(opts.guard ? { guard: opts.guard } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  opts.signal?.throwIfAborted();
  const found = await withClient(uri, source.label, (c) => summarizeDatabase(c, scratchDb));
  // Documents mongorestore could not insert explain a difference better than the digest would.
  const difference: VerificationDifference | undefined = restored.clean
    ? firstDifference(opts.expected, found)
    : {
        collection: '*',
        what: 'documents',
        expected: `${restored.restored + restored.failed}`,
        found: `${restored.restored}`,
      };
  return {
    verified: difference === undefined,
    checked: {
      collections: opts.expected.length,
      documents: opts.expected.reduce((n, c) => n + c.documents, 0),
      indexes: indexCount(opts.expected),
    },
    ...(difference ? { difference } : {}),
    scratchDb,
    durationMs: Date.now() - started,
  };
}
