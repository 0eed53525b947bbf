import { isTokenExpired } from './token';

const jwt = (claims: unknown) => {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(claims)}.sig`;
};

describe('isTokenExpired (product §5)', () => {
  const now = 1_700_000_000_000;
  it('is expired when missing or malformed', () => {
    expect(isTokenExpired(null, now)).toBe(true);
    expect(isTokenExpired('', now)).toBe(true);
    expect(isTokenExpired('abc', now)).toBe(true);
    expect(isTokenExpired('a.%%%.c', now)).toBe(true);
    expect(isTokenExpired(jwt('just a string'), now)).toBe(true);
    expect(isTokenExpired(jwt({ exp: 'soon' }), now)).toBe(true);
  });
  it('is expired when exp is at or before now', () => {
    expect(isTokenExpired(jwt({ exp: now / 1000 }), now)).toBe(true);
    expect(isTokenExpired(jwt({ exp: now / 1000 - 1 }), now)).toBe(true);
    expect(isTokenExpired(jwt({ exp: now / 1000 + 1 }), now)).toBe(false);
  });
  it('never expires without an exp claim', () => {
    expect(isTokenExpired(jwt({ sub: 'u1' }), now)).toBe(false);
  });
});
