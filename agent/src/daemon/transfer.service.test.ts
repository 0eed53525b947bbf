import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { encryptPayload } from '../crypto/encrypt.js';
import { CofferFormatError } from '../crypto/errors.js';
import { Compression } from '../crypto/format.js';
import { generateMasterKey } from '../crypto/key.js';
import { createRestoreVerifier } from '../pipeline/restore.js';
import { buildArchive } from '../testing/archive-builder.js';
import { downloadRestore, TransferError, UploadSink, type ServerAccess } from './transfer.js';

const BACKUP_ID = 'aaaaaaaaaaaaaaaaaaaaaaaa';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let server: http.Server;
let handler: Handler;
let access: ServerAccess;
let dir: string;

beforeAll(async () => {
  server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  access = {
    server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: 'cof_test_key',
    agentId: 'bbbbbbbbbbbbbbbbbbbbbbbb',
  };
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-transfer-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

describe('UploadSink', () => {
  it('streams a chunked PUT with the agent headers and completes on the 2xx answer', async () => {
    const seen: { headers?: http.IncomingHttpHeaders; url?: string; body?: Buffer } = {};
    handler = (req, res) => {
      seen.headers = req.headers;
      seen.url = req.url;
      void readAll(req).then((body) => {
        seen.body = body;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ size: body.length }));
      });
    };
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const sink = new UploadSink(access, BACKUP_ID, 'f'.repeat(32));
    await pipeline(Readable.from([data.subarray(0, 1000), data.subarray(1000)]), sink);
    expect(seen.url).toBe(`/api/agent/backups/${BACKUP_ID}/data`);
    expect(seen.headers).toMatchObject({
      'x-api-key': 'cof_test_key',
      'x-coffer-agent-id': access.agentId,
      'x-coffer-key-fingerprint': 'f'.repeat(32),
      'content-type': 'application/octet-stream',
      'transfer-encoding': 'chunked',
    });
    expect(seen.body!.equals(data)).toBe(true);
    expect(sink.storedSize).toBe(data.length);
  });

  it('starts the request before the first byte (the server learns at once that a backup runs)', async () => {
    const arrived = new Promise<void>((resolve) => {
      handler = (req, res) => {
        resolve();
        void readAll(req).then(() => res.end('{}'));
      };
    });
    const sink = new UploadSink(access, BACKUP_ID, 'f'.repeat(32));
    await arrived; // nothing written yet
    sink.end();
    await new Promise((r) => sink.once('finish', r));
  });

  it("fails with the server's message on a refusal, even one sent while the body is still flowing", async () => {
    handler = (req, res) => {
      res.statusCode = 429;
      res.setHeader('content-type', 'application/json');
      res.setHeader('connection', 'close');
      res.end(JSON.stringify({ message: 'Storage limit exceeded for your plan', code: 'LIMIT_REACHED' }));
      req.resume();
    };
    const source = new PassThrough();
    const sink = new UploadSink(access, BACKUP_ID, 'f'.repeat(32));
    const done = pipeline(source, sink);
    const feed = setInterval(() => source.write(randomBytes(64 * 1024)), 5);
    try {
      await expect(done).rejects.toThrow(
        new TransferError(
          'The server refused the upload: Storage limit exceeded for your plan (HTTP 429)',
          429,
        ),
      );
    } finally {
      clearInterval(feed);
    }
    expect(sink.refusal).toBe(
      'The server refused the upload: Storage limit exceeded for your plan (HTTP 429)',
    );
  });

  it('a failed pipeline leaves the request open until abort(): the failure is reported first', async () => {
    let serverSide!: IncomingMessage;
    const opened = new Promise<void>((resolve) => {
      handler = (req) => {
        serverSide = req;
        req.resume();
        resolve();
      };
    });
    const source = new PassThrough();
    const sink = new UploadSink(access, BACKUP_ID, 'f'.repeat(32));
    sink.on('error', () => undefined);
    const done = pipeline(source, sink);
    source.write(Buffer.from('partial'));
    await opened;
    source.destroy(new Error('mongodump exited with code 1'));
    await expect(done).rejects.toThrow('mongodump exited with code 1');
    await new Promise((r) => setTimeout(r, 100));
    expect(serverSide.complete).toBe(false);
    expect(serverSide.destroyed).toBe(false); // still open: the reason can reach the server first
    const closed = new Promise((r) => serverSide.once('close', r));
    sink.abort();
    await closed;
    expect(serverSide.complete).toBe(false); // cut, never a cleanly ended body
  });

  it('a connection that cannot be made fails the upload with a readable reason', async () => {
    const sink = new UploadSink({ ...access, server: 'http://127.0.0.1:1' }, BACKUP_ID, 'f'.repeat(32));
    await expect(pipeline(Readable.from([Buffer.from('x')]), sink)).rejects.toThrow(
      /^Upload to the server failed: connect ECONNREFUSED/,
    );
  });
});

describe('downloadRestore', () => {
  const RESTORE_ID = 'cccccccccccccccccccccccc';

  it('saves the file (mode 0600) with progress, using the agent headers', async () => {
    const data = randomBytes(1024 * 1024);
    let headers: http.IncomingHttpHeaders = {};
    handler = (req, res) => {
      headers = req.headers;
      expect(req.url).toBe(`/api/agent/restores/${RESTORE_ID}/data`);
      res.setHeader('content-length', String(data.length));
      res.end(data);
    };
    const file = path.join(dir, 'x.coffer');
    const seen: number[] = [];
    const n = await downloadRestore(access, RESTORE_ID, file, { onProgress: (b) => seen.push(b) });
    expect(n).toBe(data.length);
    expect(readFileSync(file).equals(data)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(seen.at(-1)).toBe(data.length);
    expect(headers).toMatchObject({ 'x-api-key': 'cof_test_key', 'x-coffer-agent-id': access.agentId });
  });

  it("refuses with the server's message, and never overwrites an existing file", async () => {
    handler = (_req, res) => {
      res.statusCode = 409;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ message: 'Restore is not in progress', code: 'CONFLICT' }));
    };
    await expect(downloadRestore(access, RESTORE_ID, path.join(dir, 'a'))).rejects.toThrow(
      'The server refused the download: Restore is not in progress (HTTP 409)',
    );
    handler = (_req, res) => res.end('data');
    const existing = path.join(dir, 'b');
    writeFileSync(existing, 'mine');
    await expect(downloadRestore(access, RESTORE_ID, existing)).rejects.toThrow(/EEXIST/);
    expect(readFileSync(existing, 'utf8')).toBe('mine');
  });

  it('a body cut short of its Content-Length is an error, not a file', async () => {
    handler = (_req, res) => {
      res.setHeader('content-length', '100000');
      res.write(randomBytes(5000));
      setTimeout(() => res.destroy(), 20);
    };
    await expect(downloadRestore(access, RESTORE_ID, path.join(dir, 'c'))).rejects.toThrow(
      /^The download of the backup file was cut off after 5000 of 100000 bytes/,
    );
  });

  describe('feeding a second Writable (the verifier) while downloading', () => {
    /** Takes one chunk at a time, later, so the download must wait for it (backpressure). */
    class SlowSink extends Writable {
      readonly parts: Buffer[] = [];
      ended = false;
      constructor(private readonly failWith?: Error) {
        super({ highWaterMark: 1024 });
      }
      override _write(chunk: Buffer, _e: BufferEncoding, cb: (e?: Error) => void) {
        if (this.failWith) return cb(this.failWith);
        setImmediate(() => {
          this.parts.push(chunk);
          cb();
        });
      }
      override _final(cb: () => void) {
        this.ended = true;
        cb();
      }
    }

    /** Sends `first`, then holds the response open until the client goes away. */
    function holdAfter(first: Buffer, total: number): Promise<void> {
      return new Promise((clientLeft) => {
        handler = (_req, res) => {
          res.setHeader('content-length', String(total));
          res.write(first);
          res.on('close', () => clientLeft());
        };
      });
    }

    it('gives it every byte in order, waits for it, and ends it with the download', async () => {
      const data = randomBytes(2 * 1024 * 1024 + 5);
      handler = (_req, res) => {
        res.setHeader('content-length', String(data.length));
        res.end(data);
      };
      const sink = new SlowSink();
      const file = path.join(dir, 'v.coffer');
      let maxAhead = 0;
      const n = await downloadRestore(access, RESTORE_ID, file, {
        also: sink,
        onProgress: (bytes) => {
          const taken = sink.parts.reduce((a, p) => a + p.length, 0);
          maxAhead = Math.max(maxAhead, bytes - taken);
        },
      });
      expect(n).toBe(data.length);
      expect(sink.ended).toBe(true);
      expect(Buffer.concat(sink.parts).equals(data)).toBe(true);
      expect(readFileSync(file).equals(data)).toBe(true);
      // Backpressure: the download never ran far ahead of what the slow sink had taken.
      expect(maxAhead).toBeLessThan(data.length / 2);
    });

    it('stops at once when it fails, rejecting with its error unchanged', async () => {
      const failure = new Error('This backup was encrypted with a different key');
      const left = holdAfter(randomBytes(64 * 1024), 10 * 1024 * 1024);
      const err = await downloadRestore(access, RESTORE_ID, path.join(dir, 'w.coffer'), {
        also: new SlowSink(failure),
      }).catch((e: unknown) => e);
      expect(err).toBe(failure);
      await left; // the connection was dropped, not read to its end
    });

    it("with the restore's verifier: a wrong key stops the download at the header", async () => {
      const file = encryptPayload(buildArchive('shop', [{ name: 'c', documents: [{ _id: 1 }] }]), {
        masterKey: generateMasterKey(),
        compression: Compression.None,
      });
      const left = holdAfter(file.subarray(0, 1000), 10 * 1024 * 1024);
      const verifier = createRestoreVerifier(generateMasterKey());
      const err = await downloadRestore(access, RESTORE_ID, path.join(dir, 'k.coffer'), {
        also: verifier.sink,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CofferFormatError);
      expect(err).toMatchObject({ code: 'WRONG_KEY' });
      await expect(verifier.result).rejects.toBe(err);
      await left;
    });

    it("with the restore's verifier: a good file downloads and verifies in one pass", async () => {
      const key = generateMasterKey();
      const file = encryptPayload(
        buildArchive('shop', [{ name: 'c', documents: [{ _id: 1 }, { _id: 2 }] }]),
        {
          masterKey: key,
          compression: Compression.None,
        },
      );
      handler = (_req, res) => {
        res.setHeader('content-length', String(file.length));
        res.end(file);
      };
      const verifier = createRestoreVerifier(key);
      await downloadRestore(access, RESTORE_ID, path.join(dir, 'g.coffer'), { also: verifier.sink });
      await expect(verifier.result).resolves.toMatchObject({
        sourceDb: 'shop',
        collections: [{ name: 'c', documents: 2 }],
        fileBytes: file.length,
      });
    });

    it('a broken download fails the verifier with the download error', async () => {
      handler = (_req, res) => {
        res.setHeader('content-length', '100000');
        res.write(randomBytes(5000));
        setTimeout(() => res.destroy(), 20);
      };
      const also = new PassThrough().resume();
      also.on('error', () => undefined);
      const err = await downloadRestore(access, RESTORE_ID, path.join(dir, 'b.coffer'), { also }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(TransferError);
      // The verifier behind it learns why its input stopped, instead of waiting for the rest.
      expect(also.destroyed).toBe(true);
      expect(also.errored).toBe(err);
    });
  });
});
