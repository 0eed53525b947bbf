// Fixed data the test stack and the tests share, so a test names the same user, admin or plan the
// stack (or a fake) was seeded with instead of repeating the literal.

/** The user the unit tests act as, and another one whose objects must stay out of sight (ObjectId-shaped). */
export const TEST_USER_ID = '64b7f0c2a1b2c3d4e5f60718';
export const OTHER_USER_ID = '64b7f0c2a1b2c3d4e5f60799';

/** The first admin the integration stack starts auth with (COFFER_ADMIN_EMAIL/PASSWORD). */
export const TEST_ADMIN = { email: 'admin@coffer.test', password: 'admin-password-1' };

/** JWT_SECRET and API_KEY_PEPPER of the integration stack (long enough for auth's config). */
export const TEST_SECRETS = {
  jwtSecret: 'integration-test-secret-0123456789',
  apiKeyPepper: 'integration-test-pepper-0123456789',
};

/** A paid plan with hourly backups, shaped like auth's GetUserPlan answer (limits in hours and bytes). */
export const TEST_PRO_PLAN = {
  id: 'p',
  name: 'Pro',
  price: 29,
  popular: true,
  dbLimit: 10,
  retentionLimit: 2160,
  storageLimit: 10 * 1024 ** 3,
  frequencyLimit: 1,
  gfsLimits: { hourly: 48, daily: 31, weekly: 12, monthly: 24, yearly: 3 },
  features: [] as Array<{ text: string }>,
};
