import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { health, storage } from '@coffer/proto';
import { SignJWT } from 'jose';
import { AppError } from '../errors';
import { capturedLogger } from '../testing/captured-logger';
import { callerTokens } from './caller-token';
import { grpcClient } from './client';
import { startGrpcServer, unaryHandlers, type AsyncUnaryHandlers, type GrpcServer } from './server';
import { serviceIdentities, type ServiceIdentity } from './service-keys';

// A real gRPC server of the storage service's definition, started as the services start theirs,
// and real clients: the check in front of every method (unary and streaming) lets only an allowed
// caller's valid token through. Storage takes calls from the gateway and the orchestrator only.

const { log, lines } = capturedLogger('storage');

const ids = serviceIdentities(['storage', 'gateway', 'notification', 'backup-orchestrator']);
// A gateway key the storage service never saw: what a forger holds.
const forged: ServiceIdentity = { ...serviceIdentities(['gateway']).gateway, publicKeys: new Map() };
const INFO = { userId: 'u', blobId: 'b', size: 3, sha256: '', createdAt: '', keyFingerprint: '' };

let server: GrpcServer;
let address: string;
const ran: string[] = [];

beforeAll(async () => {
  const unary = unaryHandlers<storage.StorageServiceServer>(log, {
    stat: async () => {
      ran.push('stat');
      return INFO;
    },
    delete: async () => {
      ran.push('delete');
      return {};
    },
  } as unknown as AsyncUnaryHandlers<storage.StorageServiceServer>);
  const impl = {
    stat: unary.stat,
    delete: unary.delete,
    get: (call: { write(m: storage.GetResponse): void; end(): void }) => {
      ran.push('get');
      call.write({ info: INFO });
      call.write({ chunk: Buffer.from('abc') });
      call.end();
    },
  };
  server = await startGrpcServer('127.0.0.1:0', [{ definition: storage.StorageServiceService, impl }], {
    identity: ids.storage,
    log,
  });
  address = `127.0.0.1:${server.port}`;
});

afterAll(() => server?.stop());

beforeEach(() => {
  ran.length = 0;
  lines.length = 0;
});

/** A bare grpc-js client: sends whatever `authorization` it is given, or none. */
function bareClient() {
  return new storage.StorageServiceClient(address, credentials.createInsecure());
}

const withToken = (token?: string) => {
  const md = new Metadata();
  if (token !== undefined) md.set('authorization', `Bearer ${token}`);
  return md;
};

function unaryCall(method: 'stat' | 'delete', md: Metadata): Promise<{ code: number; details?: string }> {
  const client = bareClient();
  return new Promise((resolve) =>
    client[method]({ userId: 'u', blobId: 'b' }, md, (err: ServiceError | null) => {
      client.close();
      resolve(err ? { code: err.code, details: err.details } : { code: status.OK });
    }),
  );
}
const stat = (md: Metadata) => unaryCall('stat', md);
const remove = (md: Metadata) => unaryCall('delete', md);

function get(md: Metadata): Promise<{ code: number; chunks: number }> {
  const client = bareClient();
  const call = client.get({ userId: 'u', blobId: 'b' }, md);
  let chunks = 0;
  return new Promise((resolve) => {
    call.on('data', () => chunks++);
    call.on('error', (err: ServiceError) => {
      client.close();
      resolve({ code: err.code, chunks });
    });
    call.on('end', () => {
      client.close();
      resolve({ code: status.OK, chunks });
    });
  });
}

const tokenOf = (identity: ServiceIdentity, callee: 'storage' | 'auth', now?: () => number) =>
  callerTokens(identity, callee, now)!();

describe('the caller check in front of every method', () => {
  it('lets an allowed caller with a valid token through, unary and streaming', async () => {
    const token = await tokenOf(ids.gateway, 'storage');
    expect(await stat(withToken(token))).toEqual({ code: status.OK });
    expect(await get(withToken(token))).toEqual({ code: status.OK, chunks: 2 });
    expect(ran).toEqual(['stat', 'get']);
    ran.length = 0;
    const orchestrator = await tokenOf(ids['backup-orchestrator'], 'storage');
    expect(await remove(withToken(orchestrator))).toEqual({ code: status.OK });
  });

  it.each([
    ['no token', async () => undefined],
    ['a token that is not a JWT', async () => 'not-a-jwt'],
    ['a bad signature (a key storage does not know as the gateway)', () => tokenOf(forged, 'storage')],
    ['an expired token', () => tokenOf(ids.gateway, 'storage', () => Date.now() - 10 * 60_000)],
    ['a token for another service', () => tokenOf(ids.gateway, 'auth')],
    [
      'a token whose life is too long (exp a day on)',
      () =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'EdDSA' })
          .setIssuer('gateway')
          .setSubject('gateway')
          .setAudience('storage')
          .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
          .setExpirationTime('1d')
          .sign(ids.gateway.privateKey!),
    ],
    [
      'an unsigned token (alg none)',
      async () => {
        const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
        const now = Math.floor(Date.now() / 1000);
        return `${b64({ alg: 'none' })}.${b64({ iss: 'gateway', sub: 'gateway', aud: 'storage', iat: now, exp: now + 60 })}.`;
      },
    ],
  ])('refuses %s with UNAUTHENTICATED, unary and streaming', async (_what, token) => {
    const t = await token();
    expect(await stat(withToken(t))).toMatchObject({ code: status.UNAUTHENTICATED });
    expect(await get(withToken(t))).toEqual({ code: status.UNAUTHENTICATED, chunks: 0 });
    expect(ran).toEqual([]);
  });

  it('refuses a valid token of a caller that may not call this service with PERMISSION_DENIED', async () => {
    const token = await tokenOf(ids.notification, 'storage');
    expect(await stat(withToken(token))).toEqual({
      code: status.PERMISSION_DENIED,
      details: 'storage does not take calls from notification',
    });
    expect(await get(withToken(token))).toEqual({ code: status.PERMISSION_DENIED, chunks: 0 });
    expect(ran).toEqual([]);
  });

  it('refuses a caller a method it is not allowed, while its own methods pass', async () => {
    // The orchestrator may delete a blob (retention, cleanup), never read its bytes (Get) or info.
    const token = await tokenOf(ids['backup-orchestrator'], 'storage');
    expect(await get(withToken(token))).toEqual({ code: status.PERMISSION_DENIED, chunks: 0 });
    expect(await stat(withToken(token))).toMatchObject({ code: status.PERMISSION_DENIED });
    expect(await remove(withToken(token))).toEqual({ code: status.OK });
    expect(ran).toEqual(['delete']);
  });

  it('logs each refusal with the caller and the method, never the token', async () => {
    const token = await tokenOf(ids.notification, 'storage');
    await stat(withToken(token));
    await stat(withToken());
    const refused = lines.filter((l) => l.msg === 'call refused');
    expect(refused).toEqual([
      expect.objectContaining({
        caller: 'notification',
        method: '/coffer.storage.v1.StorageService/Stat',
        grpcCode: 'PERMISSION_DENIED',
      }),
      expect.objectContaining({
        caller: null,
        method: '/coffer.storage.v1.StorageService/Stat',
        grpcCode: 'UNAUTHENTICATED',
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(token.split('.')[2]);
  });

  it('names the verified caller on the lines the handler logs', async () => {
    await remove(withToken(await tokenOf(ids['backup-orchestrator'], 'storage')));
    expect(lines.find((l) => l.msg === 'rpc')).toMatchObject({
      rpc: 'delete',
      grpcCode: 'OK',
      caller: 'backup-orchestrator',
    });
  });

  it('leaves the health service open to probes', async () => {
    const client = new health.HealthClient(address, credentials.createInsecure());
    const res = await new Promise<health.HealthCheckResponse>((resolve, reject) =>
      client.check({ service: '' }, (err, r) => (err ? reject(err) : resolve(r))),
    );
    client.close();
    expect(res.status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
  });
});

describe('the calling side', () => {
  it('signs every call of a client, the streaming ones too', async () => {
    const client = grpcClient(storage.StorageServiceClient, address, {
      identity: ids.gateway,
      callee: 'storage',
    });
    await expect(client.stat({ userId: 'u', blobId: 'b' })).resolves.toMatchObject({ size: 3 });
    const streamed = await new Promise<number>((resolve, reject) => {
      let n = 0;
      const call = client.raw.get({ userId: 'u', blobId: 'b' });
      call.on('data', () => n++);
      call.on('error', reject);
      call.on('end', () => resolve(n));
    });
    client.close();
    expect(streamed).toBe(2);
  });

  it('turns a refusal of the calling service into an internal error, not the user being signed out', async () => {
    const client = grpcClient(storage.StorageServiceClient, address, {
      identity: ids.notification,
      callee: 'storage',
    });
    const err = await client.stat({ userId: 'u', blobId: 'b' }).catch((e: unknown) => e);
    client.close();
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ kind: 'INTERNAL', cause: { grpcCode: 'PERMISSION_DENIED' } });
  });

  it('reuses one token until shortly before it expires', async () => {
    let now = Date.now();
    const next = callerTokens(ids.gateway, 'storage', () => now)!;
    const first = await next();
    now += 60_000;
    expect(await next()).toBe(first);
    now += 4 * 60_000;
    expect(await next()).not.toBe(first);
  });

  it('has no token to send without a private key', () => {
    const { privateKey: _none, ...withoutKey } = ids.gateway;
    expect(callerTokens(withoutKey, 'storage')).toBeUndefined();
  });
});
