import { checkAuthConfig, twoFactorKey } from './config';

const STRONG = (c: string) => c.repeat(40);
const production = {
  NODE_ENV: 'production',
  JWT_SECRET: STRONG('j'),
  API_KEY_PEPPER: STRONG('p'),
};

describe('auth config: the two-factor encryption key', () => {
  it('is required in production, at least 32 characters and no placeholder', () => {
    const missing = checkAuthConfig(production);
    expect(missing.success).toBe(false);
    expect(JSON.stringify(missing.error?.issues)).toContain('TOTP_ENCRYPTION_KEY must be set in production');
    expect(checkAuthConfig({ ...production, TOTP_ENCRYPTION_KEY: 'short' }).success).toBe(false);
    expect(checkAuthConfig({ ...production, TOTP_ENCRYPTION_KEY: `change-me-${STRONG('x')}` }).success).toBe(
      false,
    );
    expect(checkAuthConfig({ ...production, TOTP_ENCRYPTION_KEY: STRONG('t') }).success).toBe(true);
  });

  it('is derived from API_KEY_PEPPER for a local run, as a key of its own', () => {
    const local = checkAuthConfig({});
    expect(local.success).toBe(true);
    const derived = twoFactorKey(local.data!);
    expect(derived).toHaveLength(43);
    expect(derived).not.toContain(local.data!.API_KEY_PEPPER);
    // The same pepper gives the same key (a restart reads the secrets it sealed), another one not.
    expect(twoFactorKey(local.data!)).toBe(derived);
    expect(twoFactorKey({ ...local.data!, API_KEY_PEPPER: STRONG('q') })).not.toBe(derived);
    expect(twoFactorKey({ ...local.data!, TOTP_ENCRYPTION_KEY: STRONG('t') })).toBe(STRONG('t'));
  });
});
