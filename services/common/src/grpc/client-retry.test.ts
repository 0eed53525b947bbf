import { connectivityState, type Metadata, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { storage } from '@coffer/proto';
import { capturedLogger } from '../testing/captured-logger';
import { grpcClient } from './client';
import { startGrpcServer, type GrpcServer } from './server';
import { serviceIdentities } from './service-keys';

// A real server restarted under a real client (the one place clients are made): a call made while
// the server is down is answered UNAVAILABLE, retried by the channel's retry policy, and answered
// by the server that came back on the same address.

const { log } = capturedLogger('storage');
const ids = serviceIdentities(['storage', 'gateway']);
const INFO = { userId: 'u', blobId: 'b', size: 3, sha256: '', createdAt: '', keyFingerprint: '' };

/** A storage server whose Stat answers and notes the attempt number grpc-js sends on a retry. */
function statServer(address: string, attempts: string[]): Promise<GrpcServer> {
  const stat = (call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
    attempts.push(String((call.metadata as Metadata).get('grpc-previous-rpc-attempts')[0] ?? '0'));
    cb(null, INFO);
  };
  return startGrpcServer(address, [{ definition: storage.StorageServiceService, impl: { stat } }], {
    identity: ids.storage,
    log,
  });
}

const servers: GrpcServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.stop())));

test('a call made while its server restarts is retried and answered by the server that came back', async () => {
  const first: string[] = [];
  const before = await statServer('127.0.0.1:0', first);
  const address = `127.0.0.1:${before.port}`;
  const client = grpcClient(storage.StorageServiceClient, address, {
    identity: ids.gateway,
    callee: 'storage',
  });
  try {
    await client.stat({ userId: 'u', blobId: 'b' });
    expect(first).toEqual(['0']);

    await before.stop();
    const call = client.stat({ userId: 'u', blobId: 'b' }, { timeoutMs: 30_000 });
    // The first attempt has found nobody there (the channel says so) before the server is back.
    const channel = client.raw.getChannel();
    for (let i = 0; channel.getConnectivityState(false) !== connectivityState.TRANSIENT_FAILURE; i++) {
      if (i > 500) throw new Error('the channel never noticed the server was gone');
      await new Promise((r) => setTimeout(r, 10));
    }
    const second: string[] = [];
    servers.push(await statServer(address, second));

    await expect(call).resolves.toMatchObject({ blobId: 'b', size: 3 });
    expect(second).toHaveLength(1);
    expect(Number(second[0])).toBeGreaterThanOrEqual(1);
  } finally {
    client.close();
  }
});
