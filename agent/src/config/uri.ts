// MongoDB connection strings: just enough parsing to find the database, the credentials (for
// redaction) and to build the URI handed to mongodump/mongorestore. WHATWG URL cannot parse
// multi-host strings (`mongodb://a:1,b:2/db`), so this is a small dedicated parser.

export interface ParsedMongoUri {
  scheme: 'mongodb' | 'mongodb+srv';
  /** Raw (still percent-encoded) user info, without the '@'. */
  userInfo: string | undefined;
  username: string | undefined;
  password: string | undefined;
  hosts: string;
  /** Database from the path, percent-decoded; undefined when absent. */
  database: string | undefined;
  /** Query options in order, keys as written. */
  options: Array<[string, string]>;
}

export class UriError extends Error {
  override readonly name = 'UriError';
}

const URI_RE = /^(mongodb(?:\+srv)?):\/\/(?:([^@/?#]*)@)?([^/?#@]+)(?:\/([^?#]*))?(?:\?([^#]*))?$/;

function decode(s: string, what: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new UriError(`the connection string's ${what} is not valid percent-encoding`);
  }
}

export function parseMongoUri(uri: string): ParsedMongoUri {
  const m = URI_RE.exec(uri.trim());
  if (!m) throw new UriError('not a MongoDB connection string (expected mongodb://… or mongodb+srv://…)');
  const [, scheme, userInfo, hosts, path, query] = m;
  let username: string | undefined;
  let password: string | undefined;
  if (userInfo !== undefined) {
    const i = userInfo.indexOf(':');
    username = decode(i < 0 ? userInfo : userInfo.slice(0, i), 'user name');
    password = i < 0 ? undefined : decode(userInfo.slice(i + 1), 'password');
  }
  const options: Array<[string, string]> = [];
  for (const part of (query ?? '').split('&')) {
    if (!part) continue;
    const i = part.indexOf('=');
    options.push(i < 0 ? [part, ''] : [part.slice(0, i), part.slice(i + 1)]);
  }
  return {
    scheme: scheme as ParsedMongoUri['scheme'],
    userInfo,
    username,
    password,
    hosts: hosts!,
    database: path ? decode(path, 'database name') : undefined,
    options,
  };
}

function option(p: ParsedMongoUri, name: string): string | undefined {
  return p.options.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

/**
 * The URI given to mongodump/mongorestore: no database in the path (the database is passed with
 * --db or --nsFrom/--nsTo, and a path database would conflict or restrict the restore), and an
 * explicit authSource when credentials are present, so authentication still happens against the
 * database the original URI implied (its path database, else admin — the driver's rule).
 */
export function toolUri(uri: string): string {
  const p = parseMongoUri(uri);
  const options = [...p.options];
  if (p.userInfo !== undefined && option(p, 'authSource') === undefined) {
    options.push(['authSource', encodeURIComponent(p.database ?? 'admin')]);
  }
  const auth = p.userInfo !== undefined ? `${p.userInfo}@` : '';
  const query = options.length ? `?${options.map(([k, v]) => (v === '' ? k : `${k}=${v}`)).join('&')}` : '';
  return `${p.scheme}://${auth}${p.hosts}/${query}`;
}

/** Strings that must never appear in logs or errors for this URI. */
export function uriSecrets(uri: string): string[] {
  const out = new Set<string>([uri, uri.trim()]);
  try {
    const p = parseMongoUri(uri);
    if (p.password) {
      out.add(p.password);
      out.add(encodeURIComponent(p.password));
    }
    if (p.userInfo) {
      const raw = p.userInfo.split(':').slice(1).join(':');
      if (raw) out.add(raw);
    }
    out.add(toolUri(uri));
  } catch {
    // unparseable: the whole string is already listed
  }
  return [...out].filter((s) => s.length > 0);
}

/** Hosts of a URI without credentials, for messages ("mongodb://db1:27017,db2:27017"). */
export function describeUri(uri: string): string {
  try {
    const p = parseMongoUri(uri);
    return `${p.scheme}://${p.hosts}`;
  } catch {
    return 'the connection string';
  }
}
