// The release keys this agent trusts, fixed into the binary when it is built
// (scripts/build-binaries.mjs, COFFER_RELEASE_PUBLIC_KEYS): never read from the server or from a
// file, so nobody but the holder of a release key's secret can make it run other code. Two keys at
// once let a new key take over (docs/releases.md); a development run (Node.js over dist/) has none.
import { parsePublicKeys, type PublicKey } from './minisign.js';

declare const __COFFER_RELEASE_KEYS__: string | undefined;

export const TRUSTED_RELEASE_KEYS: readonly PublicKey[] =
  typeof __COFFER_RELEASE_KEYS__ === 'string' ? parsePublicKeys(__COFFER_RELEASE_KEYS__) : [];
