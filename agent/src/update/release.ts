// The release the Coffer server offers (GET /downloads/release.json, written by
// scripts/build-binaries.mjs): the agent version and, per platform, each file's name, size and
// SHA-256. An agent trusts a download only when it matches these hashes.
import { z } from 'zod';
import { LIMITS } from '@coffer/contracts';

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

export class UpdateError extends Error {
  override readonly name = 'UpdateError';
}

/** Reads the server's release description; every failure is an UpdateError saying what went wrong. */
export async function fetchRelease(server: string, fetchImpl: typeof fetch = fetch): Promise<Release> {
  const url = new URL('/downloads/release.json', server).toString();
  let res: Response;
  try {
    res = await fetchImpl(url, { signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    throw new UpdateError(
      `cannot reach ${new URL(server).origin} for the release information (${(e as Error).message})`,
    );
  }
  if (!res.ok)
    throw new UpdateError(`the server has no agent release to offer (HTTP ${res.status} for ${url})`);
  const parsed = ReleaseSchema.safeParse(await res.json().catch(() => undefined));
  if (!parsed.success) throw new UpdateError('the server sent an unreadable release description');
  return parsed.data;
}
