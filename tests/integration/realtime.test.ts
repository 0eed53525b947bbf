import { io, type Socket } from 'socket.io-client';
import { connectEventBus, createLogger, PROGRESS_SUBJECTS } from '@coffer/common';
import { newUser } from './helpers';

const gateways = () => (process.env.COFFER_GATEWAY_URLS ?? process.env.COFFER_BASE_URL ?? '').split(',');

function browser(url: string, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = io(url, {
      path: '/api/socket.io',
      auth: { token },
      transports: ['websocket'],
      reconnection: false,
    });
    s.on('connect', () => resolve(s));
    s.on('connect_error', reject);
  });
}

describe('live events across gateway replicas', () => {
  it('runs two gateways in the test stack', () => {
    expect(gateways()).toHaveLength(2);
  });

  it("reach each of the owner's browsers once, whichever gateway they use, and nobody else's", async () => {
    const owner = await newUser();
    const other = await newUser();
    const [g1, g2] = gateways();
    const ownerOn1 = await browser(g1!, owner.token);
    const ownerOn2 = await browser(g2!, owner.token);
    const otherOn2 = await browser(g2!, other.token);
    const seen = { ownerOn1: [] as unknown[], ownerOn2: [] as unknown[], other: [] as unknown[] };
    ownerOn1.on('backupProgress', (e) => seen.ownerOn1.push(e));
    ownerOn2.on('backupProgress', (e) => seen.ownerOn2.push(e));
    otherOn2.on('backupProgress', (e) => seen.other.push(e));

    // What the gateway holding an agent's socket publishes for its progress reports, the same way.
    const bus = await connectEventBus({
      url: process.env.COFFER_NATS_URL!,
      name: 'realtime-test',
      log: createLogger('realtime-test', 'silent'),
      streams: [],
    });
    const progress = { current: 50, total: 200, percentage: 25, collection: 'orders' };
    bus.publishLive(PROGRESS_SUBJECTS.backup, {
      userId: owner.id,
      backupId: 'b'.repeat(24),
      status: 'in-progress',
      progress,
    });
    await bus.nc.flush();
    await new Promise((r) => setTimeout(r, 1500));
    await bus.close();
    for (const s of [ownerOn1, ownerOn2, otherOn2]) s.close();

    const expected = { backupId: 'b'.repeat(24), status: 'in-progress', progress };
    expect(seen.ownerOn1).toEqual([expected]);
    expect(seen.ownerOn2).toEqual([expected]);
    expect(seen.other).toEqual([]);
  });
});
