import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { INSTANCE_FILE, loadInstanceId, renewInstanceId } from './instance.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-instance-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = () => path.join(dir, INSTANCE_FILE);

describe('loadInstanceId', () => {
  it('creates an id on the first run and keeps it (0600, nothing else left in the folder)', async () => {
    const id = await loadInstanceId(file());
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(readFileSync(file(), 'utf8')).toBe(`${id}\n`);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([INSTANCE_FILE]);
    expect(await loadInstanceId(file())).toBe(id);
    expect(await loadInstanceId(file(), 'legacy-id-from-config')).toBe(id); // the file wins
  });

  it('creates a missing state folder', async () => {
    const nested = path.join(dir, 'state', 'coffer');
    const id = await loadInstanceId(path.join(nested, INSTANCE_FILE));
    expect(readFileSync(path.join(nested, INSTANCE_FILE), 'utf8').trim()).toBe(id);
  });

  it("adopts a valid legacy id from an older agent's config, so the server sees the same agent", async () => {
    expect(await loadInstanceId(file(), 'legacy-id-0001')).toBe('legacy-id-0001');
    expect(readFileSync(file(), 'utf8')).toBe('legacy-id-0001\n');
    expect(await loadInstanceId(file())).toBe('legacy-id-0001');
  });

  it.each<[string, unknown]>([
    ['too short', 'short'],
    ['with a slash', '../../etc/passwd'],
    ['with a space', 'has a space in it'],
    ['not a string', 12345678901],
    ['too long', 'x'.repeat(101)],
  ])('ignores a legacy id that is %s', async (_name, legacy) => {
    const id = await loadInstanceId(file(), legacy);
    expect(id).not.toBe(legacy);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('replaces a damaged id file', async () => {
    writeFileSync(file(), 'bad id!\n');
    const id = await loadInstanceId(file());
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(readFileSync(file(), 'utf8')).toBe(`${id}\n`);
  });
});

describe('renewInstanceId', () => {
  it('writes a different id that loadInstanceId then returns (0600)', async () => {
    const first = await loadInstanceId(file());
    const renewed = await renewInstanceId(file());
    expect(renewed).not.toBe(first);
    expect(await loadInstanceId(file(), first)).toBe(renewed);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([INSTANCE_FILE]);
  });
});
