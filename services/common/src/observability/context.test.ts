import { capturedLogger } from '../testing/captured-logger';
import { currentRequestId, parseRequestId, requestIdFrom, runInRequest } from './context';

describe('request ids from clients', () => {
  it('accepts ids of a safe charset and bounded length as they are', () => {
    expect(parseRequestId('abc123')).toBe('abc123');
    expect(parseRequestId('3f0c6a1e-8b0e-4a57-9d2b-1f5c9d1e2a3b')).toBe(
      '3f0c6a1e-8b0e-4a57-9d2b-1f5c9d1e2a3b',
    );
    expect(parseRequestId(' trimmed.id:1 ')).toBe('trimmed.id:1');
    expect(parseRequestId(['first', 'second'])).toBe('first');
    expect(parseRequestId('x'.repeat(128))).toBe('x'.repeat(128));
  });

  it('refuses ids that could forge a log field or a header, and overlong or empty ones', () => {
    for (const bad of [
      '',
      '   ',
      'a b',
      'a\nb',
      'a\r\nX-Evil: 1',
      '"quoted"',
      '{json}',
      'x'.repeat(129),
      undefined,
      42,
    ]) {
      expect(parseRequestId(bad)).toBeUndefined();
    }
  });

  it('makes a fresh id when the incoming one is missing or refused', () => {
    const made = requestIdFrom('bad id');
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom(undefined)).not.toBe(made);
    expect(requestIdFrom('kept-1')).toBe('kept-1');
  });
});

describe('the request context', () => {
  it('is current in everything the work awaits, and only there', async () => {
    expect(currentRequestId()).toBeUndefined();
    const seen = await runInRequest({ requestId: 'req-1' }, async () => {
      await new Promise((r) => setTimeout(r, 1));
      return currentRequestId();
    });
    expect(seen).toBe('req-1');
    expect(currentRequestId()).toBeUndefined();
  });

  it('puts the request id and user on every log line of that work, child loggers included', () => {
    const { log, lines } = capturedLogger();
    const child = log.child({ component: 'domain' });
    runInRequest({ requestId: 'req-2', userId: 'u-1' }, () => {
      log.info('from the service logger');
      child.info({ backupId: 'b1' }, 'from a child logger');
    });
    log.info('outside any request');
    expect(lines.map((l) => [l.msg, l.requestId, l.userId])).toEqual([
      ['from the service logger', 'req-2', 'u-1'],
      ['from a child logger', 'req-2', 'u-1'],
      ['outside any request', undefined, undefined],
    ]);
  });

  it('keeps redacting secrets on lines that carry a request id', () => {
    const { log, lines } = capturedLogger();
    runInRequest({ requestId: 'req-3' }, () =>
      log.info({ password: 'hunter2-secret', body: { token: 'tok-secret' } }, 'login attempt'),
    );
    const text = JSON.stringify(lines);
    expect(text).not.toContain('hunter2-secret');
    expect(text).not.toContain('tok-secret');
    expect(lines[0]?.requestId).toBe('req-3');
  });
});
