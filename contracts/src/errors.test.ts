import { ERROR_CODES, ERROR_KINDS, httpStatusOfCode, isErrorCode } from './errors.js';

describe('error codes', () => {
  it('answer with the HTTP status of their kind', () => {
    expect(httpStatusOfCode('ACCOUNT_BANNED')).toBe(403);
    expect(httpStatusOfCode('BACKUP_RATE_LIMITED')).toBe(429);
    expect(httpStatusOfCode('STORAGE_LIMIT_EXCEEDED')).toBe(429);
    expect(httpStatusOfCode('AGENT_UNAVAILABLE')).toBe(503);
    expect(httpStatusOfCode('AGENT_RESET')).toBe(409);
    expect(httpStatusOfCode('NOT_FOUND')).toBe(404);
  });

  it('include every kind as a code of its own', () => {
    for (const kind of Object.keys(ERROR_KINDS)) expect(ERROR_CODES).toHaveProperty(kind, kind);
  });

  it('tell a code from any other string', () => {
    expect(isErrorCode('ACCOUNT_BANNED')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('account_banned')).toBe(false);
    expect(isErrorCode(403)).toBe(false);
  });
});
