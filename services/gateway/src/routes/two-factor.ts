import { z } from 'zod';
import { RECOVERY_CODE_COUNT } from '@coffer/contracts';
import type { Clients } from '../clients.js';
import type { GatewayConfig } from '../config.js';
import type { Identity } from '../http/identity.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { rateLimitedBody } from '../http/errors.js';
import { messageBody, type RouteTable } from '../http/route.js';
import { secondFactorAttempts } from '../http/step-up.js';

const twoFactorStatus = z
  .object({
    enabled: z.boolean(),
    enrolmentRequired: z
      .boolean()
      .describe(
        'an admin the site requires to use two-factor sign-in, not set up yet: admin operations wait',
      ),
    recoveryCodesLeft: z.number(),
  })
  .meta({ id: 'TwoFactorStatus' });
const recoveryCodes = z
  .array(z.string())
  .describe(`${RECOVERY_CODE_COUNT} single-use recovery codes, shown this once`);

/** /api/user/two-factor/*: the caller's two-factor sign-in (TOTP) in Profile → Security. */
export function twoFactorRoutes(
  t: RouteTable,
  deps: {
    clients: Clients;
    identity: Pick<Identity, 'forget'>;
    rateLimit: RateLimiter;
    config: Pick<GatewayConfig, 'RATE_2FA_PER_USER'>;
  },
) {
  const { clients } = deps;
  const codeAttempts = secondFactorAttempts(deps.rateLimit, deps.config);

  t.add({
    method: 'get',
    path: '/api/user/two-factor',
    operationId: 'getTwoFactor',
    summary: "Whether the caller's two-factor sign-in is on, and how many recovery codes are left",
    tag: 'user',
    access: 'user',
    response: twoFactorStatus,
    handler: ({ caller }) => clients.auth.getTwoFactor({ userId: caller.id }),
  });

  t.add({
    method: 'post',
    path: '/api/user/two-factor/setup',
    operationId: 'startTwoFactorSetup',
    summary:
      'Start setting up two-factor sign-in: a new secret as a QR code and as text; it is on only once a code confirms it',
    tag: 'user',
    access: 'user',
    response: z.object({
      secret: z.string().describe('base32, for typing into the authenticator app'),
      otpauthUrl: z.string(),
      qrCode: z.string().describe('the otpauth URL as a QR code, a data:image/svg+xml URL'),
    }),
    errors: { CONFLICT: 'two-factor sign-in is already on' },
    handler: async ({ caller, res }) => {
      // The answer carries the secret: no cache may keep it.
      res.setHeader('Cache-Control', 'no-store');
      return clients.auth.startTwoFactorEnrolment({ userId: caller.id });
    },
  });

  t.add({
    method: 'post',
    path: '/api/user/two-factor/enable',
    operationId: 'enableTwoFactor',
    summary:
      'Confirm the set-up with a first code: two-factor sign-in is on, and the recovery codes are answered once',
    tag: 'user',
    access: 'user',
    body: z.object({
      code: z
        .string({ error: 'Enter the six-digit code from your authenticator app' })
        .trim()
        .regex(/^\d{6}$/, 'Enter the six-digit code from your authenticator app'),
    }),
    response: messageBody.extend({ recoveryCodes }),
    errors: {
      BAD_INPUT: 'the code is wrong (code TWO_FACTOR_CODE_INVALID)',
      CONFLICT: 'no set-up was started, or two-factor sign-in is already on',
      LIMIT_REACHED: { when: 'too many code attempts for this account', body: rateLimitedBody },
    },
    before: [({ caller }) => codeAttempts(caller.id)],
    handler: async ({ caller, body, res }) => {
      res.setHeader('Cache-Control', 'no-store');
      const { codes } = await clients.auth.confirmTwoFactorEnrolment({ userId: caller.id, code: body.code });
      // Step-up applies from the next request on, on this gateway at once.
      deps.identity.forget(caller.id);
      return { message: 'Two-factor sign-in is on', recoveryCodes: codes };
    },
  });

  t.add({
    method: 'post',
    path: '/api/user/two-factor/disable',
    operationId: 'disableTwoFactor',
    summary: 'Turn two-factor sign-in off (needs step-up)',
    tag: 'user',
    access: 'user',
    stepUp: true,
    response: messageBody,
    handler: async ({ caller }) => {
      await clients.auth.disableTwoFactor({ userId: caller.id });
      deps.identity.forget(caller.id);
      return { message: 'Two-factor sign-in is off' };
    },
  });

  t.add({
    method: 'post',
    path: '/api/user/two-factor/recovery-codes',
    operationId: 'regenerateRecoveryCodes',
    summary: 'Replace the recovery codes with ten new ones (needs step-up); the old ones stop working',
    tag: 'user',
    access: 'user',
    stepUp: true,
    response: messageBody.extend({ recoveryCodes }),
    errors: { CONFLICT: 'two-factor sign-in is off' },
    handler: async ({ caller, res }) => {
      res.setHeader('Cache-Control', 'no-store');
      const { codes } = await clients.auth.regenerateRecoveryCodes({ userId: caller.id });
      return { message: 'New recovery codes', recoveryCodes: codes };
    },
  });
}
