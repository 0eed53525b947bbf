import { TEST_ADMIN, TEST_SECRETS } from '@coffer/local-stack';

/** What every stack the tests start has in common: test mode, the test secrets and the first admin. */
export const TEST_STACK_ENV = {
  NODE_ENV: 'test',
  JWT_SECRET: TEST_SECRETS.jwtSecret,
  API_KEY_PEPPER: TEST_SECRETS.apiKeyPepper,
  COFFER_ADMIN_EMAIL: TEST_ADMIN.email,
  COFFER_ADMIN_PASSWORD: TEST_ADMIN.password,
};
