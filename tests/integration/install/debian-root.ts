// A customer's server for the installer tests: a minimal Debian root (debootstrap, no Node.js)
// unpacked into a folder of the test's and entered with chroot, each command in a mount namespace
// of its own (with /proc and /dev) so nothing is left mounted when it ends. The network is the
// host's, so the root reaches the local Coffer stack on 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const CACHE = process.env.COFFER_CACHE || path.join(os.homedir(), '.cache', 'coffer');
/** Made by `deploy/local/bootstrap.sh --with-debian-root`. */
export const DEBIAN_ROOT_ARCHIVE = path.join(CACHE, 'debian-root', 'bookworm-minbase.tar.zst');

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** A user of the root (name from its /etc/passwd); root when absent. */
  user?: string;
  env?: Record<string, string>;
  input?: string;
}

export class DebianRoot {
  private constructor(readonly dir: string) {}

  /** Unpacks a fresh copy of the cached root. */
  static async create(): Promise<DebianRoot> {
    if (!fs.existsSync(DEBIAN_ROOT_ARCHIVE))
      throw new Error(
        `${DEBIAN_ROOT_ARCHIVE} is missing: run deploy/local/bootstrap.sh --with-debian-root (debootstrap, once)`,
      );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-debian-'));
    const root = new DebianRoot(dir);
    const r = await runHost('sh', ['-c', 'zstd -dc "$1" | tar -x -C "$2"', 'sh', DEBIAN_ROOT_ARCHIVE, dir]);
    if (r.code !== 0) throw new Error(`unpacking the Debian root failed: ${r.stderr}`);
    return root;
  }

  /** A path inside the root, as seen from the host. */
  path(p: string): string {
    return path.join(this.dir, p);
  }

  /** uid:gid of a user of the root. */
  private userSpec(user: string): string {
    const line = fs
      .readFileSync(this.path('etc/passwd'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${user}:`));
    if (!line) throw new Error(`no user ${user} in the Debian root`);
    const [, , uid, gid] = line.split(':');
    return `${uid}:${gid}`;
  }

  /** Starts `argv` inside the root; SIGTERM to the returned process reaches the command. */
  spawn(argv: string[], opts: RunOptions = {}): ChildProcess {
    const env = { PATH, HOME: opts.user ? '/var/lib/coffer' : '/root', LANG: 'C.UTF-8', ...opts.env };
    const chroot = ['chroot', ...(opts.user ? [`--userspec=${this.userSpec(opts.user)}`] : []), this.dir];
    return this.spawnMounted([
      ...chroot,
      'env',
      '-i',
      ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
      ...argv,
    ]);
  }

  /** `argv` of the host in a mount namespace where the root has its /proc and /dev. */
  private spawnMounted(argv: string[]): ChildProcess {
    const enter = 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && exec "$@"';
    return spawn(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        '--fork',
        '--kill-child=SIGTERM',
        'sh',
        '-c',
        enter,
        this.dir,
        ...argv,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
  }

  /**
   * A program of the host that works on the root from outside, such as `rpm --root` (the root has
   * no rpm of its own; rpm runs the package's scriptlets inside it).
   */
  runFromHost(argv: string[]): Promise<RunResult> {
    return collect(this.spawnMounted(argv));
  }

  /** Runs `argv` inside the root to its end. */
  run(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
    return collect(this.spawn(argv, opts), opts.input);
  }

  /** A shell command line inside the root, as root. */
  sh(script: string, opts: RunOptions = {}): Promise<RunResult> {
    return this.run(['bash', '-c', script], opts);
  }

  /**
   * What a package's message says to run once it is installed, the API key from the environment
   * instead of the prompt: `coffer-agent init` for the packages' paths.
   */
  initPackagedAgent(server: string, name: string, apiKey: string): Promise<RunResult> {
    return this.run(
      ['coffer-agent', 'init', '--server', server, '--name', name].concat([
        '--config',
        '/etc/coffer/agent.json',
        '--state-dir',
        '/var/lib/coffer',
      ]),
      { env: { COFFER_API_KEY: apiKey } },
    );
  }

  async remove(): Promise<void> {
    await fs.promises.rm(this.dir, { recursive: true, force: true });
  }
}

function collect(child: ChildProcess, input?: string): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.end(input ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const runHost = (cmd: string, args: string[]) => collect(spawn(cmd, args, { stdio: 'pipe' }));

// ---------------------------------------------------------------------------------------------
// systemd does not run inside the root: the test starts the unit the installer wrote the way
// systemd would, from the file itself: ExecStartPre ('+' as root, '-' failure ignored), then
// ExecStart as User= with Environment=, and again after every exit (Restart=always).

export interface UnitFile {
  user: string;
  environment: Record<string, string>;
  execStartPre: Array<{ argv: string[]; privileged: boolean; ignoreFailure: boolean }>;
  execStart: string[];
  restart: string;
  directives: Map<string, string[]>;
}

export function parseUnit(text: string): UnitFile {
  const directives = new Map<string, string[]>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('[')) continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    directives.set(key, [...(directives.get(key) ?? []), line.slice(eq + 1)]);
  }
  const one = (k: string) => directives.get(k)?.[0] ?? '';
  const environment: Record<string, string> = {};
  for (const e of directives.get('Environment') ?? []) {
    const eq = e.indexOf('=');
    environment[e.slice(0, eq)] = e.slice(eq + 1);
  }
  return {
    user: one('User'),
    environment,
    execStartPre: (directives.get('ExecStartPre') ?? []).map((l) => {
      const prefix = l.match(/^[-+@:!]*/)![0];
      return {
        argv: l.slice(prefix.length).split(/\s+/),
        privileged: prefix.includes('+'),
        ignoreFailure: prefix.includes('-'),
      };
    }),
    execStart: one('ExecStart').split(/\s+/),
    restart: one('Restart'),
    directives,
  };
}

export class UnitRunner {
  output = '';
  starts = 0;
  private child?: ChildProcess;
  private stopping = false;
  private exited?: Promise<void>;

  constructor(
    private readonly root: DebianRoot,
    private readonly unit: UnitFile,
  ) {}

  async start(): Promise<void> {
    this.stopping = false;
    await this.startOnce();
  }

  private async startOnce(): Promise<void> {
    this.starts++;
    for (const pre of this.unit.execStartPre) {
      const r = await this.root.run(pre.argv, pre.privileged ? {} : { user: this.unit.user });
      this.output += `[ExecStartPre exit ${r.code}] ${r.stdout}${r.stderr}\n`;
      if (r.code !== 0 && !pre.ignoreFailure) throw new Error(`ExecStartPre failed: ${r.stderr}`);
    }
    const child = this.root.spawn(this.unit.execStart, { user: this.unit.user, env: this.unit.environment });
    this.child = child;
    child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stdin!.end();
    this.exited = new Promise((resolve) =>
      child.on('close', (code) => {
        this.output += `[exited ${code}]\n`;
        resolve();
        if (!this.stopping && this.unit.restart === 'always')
          setTimeout(() => void this.startOnce().catch((e: Error) => (this.output += `${e.message}\n`)), 500);
      }),
    );
  }

  /** Like `systemctl stop`: SIGTERM to the service's process, wait for its exit, no restart. */
  async stop(): Promise<void> {
    this.stopping = true;
    const pid = this.child?.pid;
    if (pid === undefined || this.child?.exitCode !== null) return;
    // unshare --fork waits for the service and exits with its status; signal the service itself.
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
    for (const c of children.filter(Boolean)) process.kill(Number(c), 'SIGTERM');
    await this.exited;
  }
}
