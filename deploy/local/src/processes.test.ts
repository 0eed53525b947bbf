import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, listening, portInUse, startProcess, waitFor } from './processes';

// A real child process (node serving a port), killed and started again as the faults suite does.
describe('Proc.kill and Proc.restart', () => {
  let logDir: string;
  beforeAll(() => {
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-proc-'));
  });
  afterAll(() => fs.rmSync(logDir, { recursive: true, force: true }));

  it('kills with SIGKILL, then starts the same command on the same port and waits until it is ready', async () => {
    const port = await freePort();
    const serve = `require('node:net').createServer().listen(${port}, '127.0.0.1')`;
    const proc = startProcess('server', process.execPath, ['-e', serve], { logDir });
    proc.ready = listening(port);
    try {
      await waitFor('server', proc.ready, 10_000, proc);
      const first = proc.child.pid;

      await proc.kill();
      expect(proc.child.signalCode).toBe('SIGKILL');
      expect(await portInUse(port)).toBe(false);

      await proc.restart(10_000);
      expect(proc.child.pid).not.toBe(first);
      expect(await portInUse(port)).toBe(true);
    } finally {
      await proc.stop();
    }
    expect(proc.child.exitCode !== null || proc.child.signalCode !== null).toBe(true);
  });
});

describe('freePort', () => {
  it('hands out bindable ports below the ephemeral range, none twice while the process lives', async () => {
    const ephemeralStart = Number(
      fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeLessThan(ephemeralStart);
      expect(await portInUse(port)).toBe(false);
    }
  });
});
