// The home page's two terminal demos and their playback (product §2 Home, §9: a line every 800 ms,
// restart 3 s after the last line).
//
// Every output line below is what coffer-agent 0.2.0 printed in a real run against a local Coffer
// stack (init, key export, db add, run with an automatic first backup, a restore requested from the
// dashboard, status). Only the server address (a local port) was replaced by
// https://coffer.example.com and the API key elided; the daemon's first log line ('starting', which
// lists local tool paths) was left out. When the agent's wording changes, capture a new run.

export const DEMO_LINE_INTERVAL_MS = 800;
export const DEMO_RESTART_DELAY_MS = 3000;

export type DemoLineKind = 'command' | 'output';

export interface DemoLine {
  kind: DemoLineKind;
  text: string;
}

export interface TerminalDemo {
  id: 'encryption' | 'restore';
  title: string;
  caption: string;
  lines: DemoLine[];
}

const cmd = (text: string): DemoLine => ({ kind: 'command', text });
const out = (text: string): DemoLine => ({ kind: 'output', text });

export const TERMINAL_DEMOS: TerminalDemo[] = [
  {
    id: 'encryption',
    title: 'Encryption',
    caption:
      'Set up the agent once: it creates the master key on your server, keeps the connection string there, and sends only encrypted backups.',
    lines: [
      cmd('coffer-agent init --server https://coffer.example.com'),
      out(
        'Agent config written to /home/deploy/.config/coffer/agent.json (server https://coffer.example.com, agent name "db-01").',
      ),
      out('Master key fingerprint: d38912b0029b4c8e9e4bbefba3cd8b9d'),
      out(''),
      out('IMPORTANT: keep a copy of the master key somewhere safe, away from this server:'),
      out('  coffer-agent key export --out coffer-master.key'),
      out('Without it no backup can be decrypted. Coffer never receives this key and cannot recover it.'),
      cmd('coffer-agent key export --out coffer-master.key'),
      out(
        'Master key written to coffer-master.key (fingerprint d38912b0029b4c8e9e4bbefba3cd8b9d). Store it offline, apart from your backups.',
      ),
      cmd('echo "$MONGODB_URI" | coffer-agent db add production-db --uri -'),
      out('Connected: database "shop" has 3 collection(s), about 6090 document(s).'),
      out(
        'Added database "production-db" (backs up "shop"). Its connection string stays in /home/deploy/.config/coffer/agent.json.',
      ),
      cmd('coffer-agent run'),
      out(
        '{"time":"2026-11-25T17:07:41.214Z","level":"info","msg":"connected","server":"https://coffer.example.com"}',
      ),
      out(
        '{"time":"2026-11-25T17:07:41.217Z","level":"info","msg":"registered","agentId":"6b0715ddd63ffa6aafe1b4e0","databases":[{"name":"production-db","isActive":true}]}',
      ),
      out(
        '{"time":"2026-11-25T17:07:45.291Z","level":"info","msg":"command received","commandId":"4bed0681-11f5-4d85-b824-7b5ed77687a3","kind":"backup","jobId":"6b0715e1327bde266f34ee8b","database":"production-db"}',
      ),
      out(
        '{"time":"2026-11-25T17:07:45.292Z","level":"info","msg":"backup started","jobId":"6b0715e1327bde266f34ee8b","database":"production-db"}',
      ),
      out(
        '{"time":"2026-11-25T17:07:46.588Z","level":"info","msg":"backup completed","jobId":"6b0715e1327bde266f34ee8b","database":"production-db","documents":6090,"collections":3,"bytes":33500,"durationMs":1278}',
      ),
    ],
  },
  {
    id: 'restore',
    title: 'Restore',
    caption:
      'Restore from the dashboard: the agent downloads the backup, verifies it with your key, and only then replaces the database.',
    lines: [
      cmd('coffer-agent status'),
      out('running (pid 11587, version 0.2.0, since 2026-11-25T17:07:40.994Z)'),
      out('server: connected (https://coffer.example.com)'),
      out('idle'),
      cmd('journalctl -u coffer-agent -o cat -f'),
      out(
        '{"time":"2026-11-25T17:07:52.042Z","level":"info","msg":"command received","commandId":"7865181c-ba97-44e0-ace7-7a4c46d661a3","kind":"restore","jobId":"6b0715e8327bde266f34ee9e","database":"production-db"}',
      ),
      out(
        '{"time":"2026-11-25T17:07:52.042Z","level":"info","msg":"restore started","jobId":"6b0715e8327bde266f34ee9e","database":"production-db"}',
      ),
      out(
        '{"time":"2026-11-25T17:07:52.103Z","level":"info","msg":"backup file downloaded; verifying","jobId":"6b0715e8327bde266f34ee9e","bytes":33500}',
      ),
      out(
        '{"time":"2026-11-25T17:07:52.624Z","level":"info","msg":"restore finished","jobId":"6b0715e8327bde266f34ee9e","database":"production-db","documentsRestored":6090,"documentsFailed":0,"droppedCollections":0,"durationMs":520}',
      ),
    ],
  },
];

/**
 * Plays a demo of `lineCount` lines: `onChange(n)` is called with 0 at once, then with one more
 * line every DEMO_LINE_INTERVAL_MS; DEMO_RESTART_DELAY_MS after the last line it starts over.
 * Returns the function that stops it.
 */
export function playDemo(lineCount: number, onChange: (shown: number) => void): () => void {
  let shown = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const step = () => {
    if (shown >= lineCount) {
      shown = 0;
      onChange(0);
    } else {
      shown += 1;
      onChange(shown);
    }
    timer = setTimeout(step, shown >= lineCount ? DEMO_RESTART_DELAY_MS : DEMO_LINE_INTERVAL_MS);
  };
  onChange(0);
  if (lineCount <= 0) return () => undefined;
  timer = setTimeout(step, DEMO_LINE_INTERVAL_MS);
  return () => clearTimeout(timer);
}
