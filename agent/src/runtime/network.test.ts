import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../config/config.js';
import { proxyFromEnv, socketAgent, trustCaFile } from './network.js';

describe('the proxy from the environment', () => {
  it('is HTTPS_PROXY, else the lower-case or HTTP_PROXY ones, shown without credentials', () => {
    expect(proxyFromEnv({})).toBeUndefined();
    expect(proxyFromEnv({ HTTPS_PROXY: 'http://user:secret@proxy.corp:3128' })).toBe(
      'http://proxy.corp:3128',
    );
    expect(proxyFromEnv({ https_proxy: 'http://p:8080' })).toBe('http://p:8080');
    expect(proxyFromEnv({ HTTP_PROXY: 'http://q:8080', HTTPS_PROXY: ' ' })).toBe('http://q:8080');
  });

  it('says so when it is not a URL', () => {
    expect(() => proxyFromEnv({ HTTPS_PROXY: 'proxy.corp:3128' })).toThrow(ConfigError);
    expect(() => proxyFromEnv({ HTTPS_PROXY: 'proxy.corp:3128' })).toThrow(/HTTPS_PROXY is not a URL/);
  });

  it('gives the WebSocket an agent only when there is a proxy', () => {
    expect(socketAgent('https://coffer.example', undefined)).toBeUndefined();
    expect(socketAgent('https://coffer.example', 'http://p:1')).toBeDefined();
  });
});

describe('the caFile', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'coffer-ca-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('must hold a PEM certificate', async () => {
    const file = path.join(dir, 'not-a-cert.pem');
    writeFileSync(file, 'hello\n');
    await expect(trustCaFile(file)).rejects.toThrow(`caFile ${file} holds no PEM certificate`);
  });

  it('must be readable', async () => {
    await expect(trustCaFile(path.join(dir, 'missing.pem'))).rejects.toThrow(/cannot be read/);
  });

  it('refuses a damaged certificate', async () => {
    const file = path.join(dir, 'damaged.pem');
    writeFileSync(file, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    await expect(trustCaFile(file)).rejects.toThrow(ConfigError);
  });
});
