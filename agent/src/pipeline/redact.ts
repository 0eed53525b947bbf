import { uriSecrets } from '../config/uri.js';

const MASK = '****';

// user:password@ inside any mongodb URI. Greedy up to the last '@' before a '/' or whitespace,
// because people do put raw '@' in passwords.
const URI_CREDENTIALS = /(mongodb(?:\+srv)?:\/\/)([^\s/@]*(?:@[^\s/@]*)*)@/gi;

/**
 * Removes credentials from text a user or the service might see: the password of every mongodb
 * URI (whatever it is), and each given secret wherever it appears (longest first).
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(URI_CREDENTIALS, (_m, scheme: string, userInfo: string) => {
    const i = userInfo.indexOf(':');
    return `${scheme}${i < 0 ? userInfo : `${userInfo.slice(0, i)}:${MASK}`}@`;
  });
  for (const s of [...secrets].filter(Boolean).sort((a, b) => b.length - a.length)) {
    out = out.split(s).join(MASK);
  }
  return out;
}

/** A redactor bound to one connection string's secrets. */
export function redactorFor(uri: string): (text: string) => string {
  const secrets = uriSecrets(uri);
  return (text) => redact(text, secrets);
}
