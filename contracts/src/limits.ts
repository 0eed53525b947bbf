// Sizes every hop of an edge agrees on. Before these lived here, the agent, the gateway and the
// services each had their own numbers (agent name 120 vs 100, platform 100 vs 50, API key 512 vs
// 200, key fingerprint 128/200/256, error text 4000/2000): a value one hop accepted, the next
// refused with a less helpful message. Where they differed, the value the service stores won.

export const LIMITS = {
  /** The agent's display name (`coffer-agent init --name`), as the dashboard shows and stores it. */
  agentName: 100,
  /** os.hostname(): 255 is the most any OS gives. */
  hostname: 255,
  /** `${os.platform()}-${os.arch()}` ('linux-x64', 'win32-arm64'): short; 50 is what is stored. */
  platform: 50,
  /** A release version ('1.4.2'). */
  version: 50,
  /** The user's API key (`cof_…`, under 100 characters); anything longer is not a key we issued. */
  apiKey: 200,
  /** The id the agent keeps in its state folder (a UUID; older agents kept shorter ones). */
  instanceId: { min: 8, max: 100 },
  /** The label a database has on the agent, which is the name the service and dashboard show. */
  databaseLabel: 64,
  /** Databases one agent may report. */
  databasesPerAgent: 1000,
  /**
   * Agents and databases one account may have: far above any real setup (a plan's dbLimit decides
   * how many run), low enough that a script registering in a loop cannot grow the lists unbounded.
   */
  agentsPerAccount: 50,
  databasesPerAccount: 200,
  /** Jobs one agent may report running at once (it runs a handful). */
  runningJobs: 100,
  /** A collection name in a progress report (MongoDB namespaces are at most 255 bytes). */
  collectionName: 300,
  /** Collections a backup's recorded list, and a restore's choice of collections, may hold. */
  collectionsPerBackup: 10_000,
  /**
   * An error text a job fails with: what the orchestrator stores and the dashboard and mails show.
   * Longer texts (tool output) are clipped to it, never refused, so the reason always arrives.
   */
  errorText: 2000,
  /** The key fingerprint in a backup's header (the agent sends 32 hex digits). */
  keyFingerprint: 128,
  /** Knowledge-base article fields (contracts/src/kb.ts). */
  articleTitle: 200,
  articleSlug: 200,
  /**
   * Markdown of one article, in characters: the longest seeded guide is about a fifth of it, and a
   * full article still fits the gateway's 100 kB JSON body limit when it is mostly ASCII.
   */
  articleContent: 50_000,
  articleTag: 50,
  articleTags: 20,
  /** The knowledge-base search box. */
  kbSearch: 200,
} as const;

/** Database labels: what `coffer-agent db add` accepts. */
export const DATABASE_LABEL_PATTERN = new RegExp(
  `^[A-Za-z0-9][A-Za-z0-9._-]{0,${LIMITS.databaseLabel - 1}}$`,
);
export const DATABASE_LABEL_RULE =
  '1 to 64 characters: letters, digits, dot, dash, underscore; starting with a letter or digit';

/** Instance ids: letters, digits, dash and underscore (a UUID fits). */
export const INSTANCE_ID_PATTERN = /^[\w-]{8,100}$/;

/** Configuration ids (agent handshake): a hex hash, or empty from agents that do not send one. */
export const CONFIG_ID_PATTERN = /^(?:[0-9a-f]{16,64})?$/;

/** Key fingerprints: hex today; the wider set leaves room for a prefixed format ('v2:…'). */
export const KEY_FINGERPRINT_PATTERN = /^[A-Za-z0-9_:.-]{1,128}$/;

/** Clips an error text to `max` characters, marking the cut with '…'. */
export function clipErrorText(text: string, max: number = LIMITS.errorText): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * How many of the newest rows a list's plain call answers (GET /api/backups, the restore
 * history); older ones come a page at a time (`limit`, `before`), which the dashboard fetches
 * once it has shown these.
 */
export const LIST_NEWEST = {
  backups: 500,
  restores: 200,
  /** One page of the audit log: its plain call answers the page'th 20, and Next asks for 20 more. */
  auditLog: 20,
} as const;
