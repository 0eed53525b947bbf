// The release the Coffer server offers (GET /downloads/release.json, written by
// scripts/build-binaries.mjs): the agent version and, per platform, each file's name, size and
// SHA-256. The server is not trusted: a release is installed only when SHA256SUMS carries a valid
// signature of a release key built into this agent (SHA256SUMS.minisig) and release.json and the
// file match the hashes in that signed list. See docs/releases.md.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { LIMITS } from '@coffer/contracts';
import { SignatureError, verifyMessage, type PublicKey } from './minisign.js';

const fileInfo = z.object({
  name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().positive(),
});

export const ReleaseSchema = z.object({
  version: z.string().min(1).max(LIMITS.version),
  node: z.string().max(50),
  files: z.record(z.string(), fileInfo.extend({ compressed: fileInfo.optional() })),
});
export type Release = z.infer<typeof ReleaseSchema>;
export type ReleaseFile = Release['files'][string];

export const SUMS_FILE = 'SHA256SUMS';
export const SIGNATURE_FILE = 'SHA256SUMS.minisig';
const RELEASE_FILE = 'release.json';
/** Far more than a release lists; a server sending more is not sending a release. */
const MAX_LIST_BYTES = 1 << 20;

export class UpdateError extends Error {
  override readonly name = 'UpdateError';
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Where a file of a release is: under its version once release.json has named it. Behind one
 * address two gateway versions may answer during a rolling update; each serves only its own
 * release under /downloads/VERSION/, so a file never arrives from one release and its checksums
 * from another.
 */
export function releaseUrl(server: string, name: string, version?: string): string {
  return new URL(`/downloads/${version ? `${encodeURIComponent(version)}/` : ''}${name}`, server).toString();
}

/**
 * Why a request failed, in words: fetch says only "fetch failed" and keeps the reason (a refused
 * connection, an untrusted certificate, a proxy that said no) in its cause.
 */
export function networkReason(e: unknown): string {
  const err = e as Error & { cause?: { message?: string; code?: string } };
  const cause = err.cause?.message || err.cause?.code;
  return cause ? `${err.message}: ${cause}` : err.message;
}

/** One small file of the release, or undefined when the server has none (404). */
async function fetchSmall(
  server: string,
  name: string,
  fetchImpl: typeof fetch,
  what: string,
  version?: string,
): Promise<Buffer | undefined> {
  const url = releaseUrl(server, name, version);
  let res: Response;
  try {
    res = await fetchImpl(url, { signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    throw new UpdateError(`cannot reach ${new URL(server).origin} for ${what} (${networkReason(e)})`);
  }
  if (res.status === 404) return undefined;
  if (!res.ok) throw new UpdateError(`cannot download ${name} (HTTP ${res.status})`);
  const body = Buffer.from(await res.arrayBuffer());
  if (body.length > MAX_LIST_BYTES) throw new UpdateError(`the server sent an oversized ${name}`);
  return body;
}

export interface FetchedRelease {
  release: Release;
  /** release.json as it arrived: its hash must be the one in the signed SHA256SUMS. */
  bytes: Buffer;
}

/** Reads the server's release description; every failure is an UpdateError saying what went wrong. */
export async function fetchRelease(server: string, fetchImpl: typeof fetch = fetch): Promise<FetchedRelease> {
  const bytes = await fetchSmall(server, RELEASE_FILE, fetchImpl, 'the release information');
  if (!bytes)
    throw new UpdateError(
      `the server has no agent release to offer (HTTP 404 for ${new URL(`/downloads/${RELEASE_FILE}`, server).toString()})`,
    );
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  const parsed = ReleaseSchema.safeParse(json);
  if (!parsed.success) throw new UpdateError('the server sent an unreadable release description');
  return { release: parsed.data, bytes };
}

/** SHA256SUMS (sha256sum's format) as name → hash. */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = line.match(/^([0-9a-f]{64}) [ *](\S+)$/);
    if (m) sums.set(m[2]!, m[1]!);
  }
  return sums;
}

/**
 * Proves that `fetched` is a release signed with one of `trusted`: the signature of SHA256SUMS,
 * then release.json's hash in it, then each file release.json announces for `platform`. Throws an
 * UpdateError naming the reason (unsigned, unknown key, a signature over other bytes, a mismatch).
 */
export async function verifyRelease(
  server: string,
  fetched: FetchedRelease,
  platform: string,
  trusted: readonly PublicKey[],
  fetchImpl: typeof fetch = fetch,
): Promise<ReleaseFile> {
  const { version } = fetched.release;
  const refused = (why: string) =>
    new UpdateError(`the release ${version} is refused: ${why}; this version keeps running`);
  if (trusted.length === 0)
    throw refused(
      'this agent was built without a release key, so it cannot check a release; install the coffer-agent binary from the setup wizard',
    );
  const sums = await fetchSmall(server, SUMS_FILE, fetchImpl, 'the release checksums', version);
  if (!sums)
    throw new UpdateError(
      `the server that answered has no release ${version} (its ${SUMS_FILE}: HTTP 404); while Coffer is being ` +
        'updated its servers may offer different releases: try again in a minute',
    );
  const signature = await fetchSmall(server, SIGNATURE_FILE, fetchImpl, 'the release signature', version);
  if (!signature) throw refused(`it is not signed (the server has no ${SIGNATURE_FILE})`);
  try {
    verifyMessage(sums, signature.toString('utf8'), trusted, SUMS_FILE);
  } catch (e) {
    if (e instanceof SignatureError) throw refused(e.message);
    throw e;
  }
  const hashes = parseSums(sums.toString('utf8'));
  const mismatch = (name: string) => refused(`${name} does not match its SHA-256 in the signed ${SUMS_FILE}`);
  if (hashes.get(RELEASE_FILE) !== sha256(fetched.bytes)) throw mismatch(RELEASE_FILE);
  const file = fetched.release.files[platform];
  if (!file) throw new UpdateError(`the server offers no agent for ${platform}`);
  for (const f of [file, file.compressed]) if (f && hashes.get(f.name) !== f.sha256) throw mismatch(f.name);
  return file;
}
