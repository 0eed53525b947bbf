import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { fsBackend } from './fs';

const KEY = '64b7f0c2a1b2c3d4e5f60718/65a1b2c3d4e5f60718290001/aaaaaaaaaaaaaaaa';

describe('filesystem backend', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-storage-fs-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const files = (sub: string) => {
    const root = path.join(dir, sub);
    return fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]) : [];
  };

  it('writes to a temp file and moves it into place on commit', async () => {
    const b = fsBackend(dir);
    await b.init();
    const w = await b.createWriter(KEY);
    await w.write(Buffer.from('hello '));
    await w.write(Buffer.from('world'));
    expect(files('tmp')).toEqual([w.ref]);
    expect(fs.existsSync(path.join(dir, 'blobs', KEY))).toBe(false);
    await w.commit();
    expect(files('tmp')).toEqual([]);
    await expect(buffer(await b.read(KEY))).resolves.toEqual(Buffer.from('hello world'));
    await expect(buffer(await b.read(KEY, { start: 6, end: 8 }))).resolves.toEqual(Buffer.from('wor'));
    await b.remove(KEY);
    await b.remove(KEY);
    expect(files('blobs')).toEqual([]);
  });

  it('abort deletes the temp file and leaves no blob', async () => {
    const b = fsBackend(dir);
    await b.init();
    const w = await b.createWriter(KEY);
    await w.write(Buffer.alloc(1024));
    await w.abort();
    expect(files('tmp')).toEqual([]);
    expect(files('blobs')).toEqual([]);
  });

  it('lists unfinished uploads for the sweep and discards them by ref', async () => {
    const b = fsBackend(dir);
    await b.init();
    const w = await b.createWriter(KEY);
    const listed = [];
    for await (const u of b.listIncomplete()) listed.push(u.ref);
    expect(listed).toEqual([w.ref]);
    await b.discard(w.ref);
    expect(files('tmp')).toEqual([]);
    await expect(w.commit()).rejects.toThrow(/ENOENT/);
  });

  it('refuses object keys that are not ids', async () => {
    const b = fsBackend(dir);
    await expect(b.createWriter('../../etc/passwd')).rejects.toThrow('invalid object key');
    await expect(b.discard('../x')).rejects.toThrow('invalid temp file name');
  });
});
