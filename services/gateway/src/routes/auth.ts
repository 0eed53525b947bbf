import { z } from 'zod';
import { conflict, fields, unauthenticated } from '@coffer/common';
import type { Clients } from '../clients.js';
import type { Identity } from '../http/identity.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { BrowserSockets } from '../realtime/sessions.js';
import { rateLimitedBody } from '../http/errors.js';
import { messageBody, type RouteTable } from '../http/route.js';
import { challengeSubject, secondFactorAttempts } from '../http/step-up.js';
import { toUser, userView } from '../views.js';
import type { GatewayConfig } from '../config.js';

const FORGOT_MESSAGE = 'If an account with that email exists, a password reset link has been sent.';
const tokenParam = z.object({ token: z.string().min(1).max(200) });

/** /api/auth/*: sign-up, sign-in, sign-out and password recovery (product §7). */
export function authRoutes(
  t: RouteTable,
  deps: {
    clients: Clients;
    rateLimit: RateLimiter;
    config: GatewayConfig;
    identity: Pick<Identity, 'forget'>;
    browsers: Pick<BrowserSockets, 'closeSession'>;
  },
) {
  const { clients, rateLimit, config } = deps;
  const sessionAnswer = z.object({ message: z.string(), token: z.string(), user: userView });
  const challengeAnswer = z
    .object({
      message: z.string(),
      twoFactorRequired: z.literal(true),
      challenge: z
        .string()
        .describe('send it with a code to POST /api/auth/login/2fa within 5 minutes (no session yet)'),
    })
    .meta({ id: 'TwoFactorChallenge' });
  const codeAttempts = secondFactorAttempts(rateLimit, config);
  const secondFactorCode = z
    .string({ error: 'Enter the code from your authenticator app or a recovery code' })
    .trim()
    .min(1, 'Enter the code from your authenticator app or a recovery code')
    .max(32, 'That code is too long: enter the six digits from your authenticator app or a recovery code');

  t.add({
    method: 'post',
    path: '/api/auth/login',
    operationId: 'login',
    summary:
      'Sign in; banned accounts get their ban details instead of an error. With two-factor sign-in on, ' +
      'the answer is a challenge for POST /api/auth/login/2fa instead of a session',
    tag: 'auth',
    access: 'public',
    body: z.object({ email: fields.email, password: z.string().min(1, 'Password is required').max(128) }),
    response: z.union([sessionAnswer.meta({ id: 'SessionAnswer' }), challengeAnswer]),
    errors: {
      UNAUTHENTICATED: 'the e-mail or password is wrong',
      FORBIDDEN: 'the account is inactive (code ACCOUNT_INACTIVE)',
      LIMIT_REACHED: {
        when: 'too many failed sign-ins from this address or for this e-mail',
        body: rateLimitedBody,
      },
    },
    // Only failed sign-ins count (a right password takes its attempt back), so colleagues behind one
    // address never lock each other out. Guessing one account's password from one address stops
    // after RATE_LOGIN_PER_EMAIL failures, but that locks out only that address: the owner signing
    // in from elsewhere is not held up unless someone fails RATE_LOGIN_PER_EMAIL_ALL times from many.
    handler: async ({ body, req, res: http }) => {
      const attempt = await rateLimit(
        [
          { key: `login:ip:${req.ip}`, limit: config.RATE_LOGIN_PER_IP },
          {
            key: `login:ip-email:${req.ip}:${body.email.toLowerCase()}`,
            limit: config.RATE_LOGIN_PER_EMAIL,
          },
          { key: `login:email:${body.email.toLowerCase()}`, limit: config.RATE_LOGIN_PER_EMAIL_ALL },
        ],
        'Too many sign-in attempts. Please wait a few minutes and try again.',
      );
      // The answer carries a session token and the API key: no cache may keep it.
      http.setHeader('Cache-Control', 'no-store');
      const res = await clients.auth.login(body);
      // The password was right: the attempt is taken back (the second factor has limits of its own).
      await attempt.refund();
      if (res.challenge)
        return {
          message: 'Enter the code from your authenticator app',
          twoFactorRequired: true as const,
          challenge: res.challenge,
        };
      return { message: 'Login successful', token: res.token, user: toUser(res.user) };
    },
  });

  t.add({
    method: 'post',
    path: '/api/auth/login/2fa',
    operationId: 'loginSecondFactor',
    summary:
      "Sign-in's second step: the challenge from POST /api/auth/login and a code from the authenticator " +
      'app, or a recovery code (each works once)',
    tag: 'auth',
    access: 'public',
    body: z.object({
      challenge: z.string({ error: 'Sign in again' }).min(1, 'Sign in again').max(2000),
      code: secondFactorCode,
    }),
    response: sessionAnswer,
    errors: {
      BAD_INPUT: 'the code is wrong, expired or already used (code TWO_FACTOR_CODE_INVALID)',
      UNAUTHENTICATED: 'the challenge expired (5 minutes) or the password changed since',
      LIMIT_REACHED: {
        when: 'too many code attempts for this account or from this address',
        body: rateLimitedBody,
      },
    },
    before: [
      async ({ body, req }) => {
        await rateLimit(
          [{ key: `2fa:ip:${req.ip}`, limit: config.RATE_2FA_PER_IP }],
          'Too many two-factor code attempts. Please wait a few minutes and try again.',
        );
        await codeAttempts(challengeSubject(config.JWT_SECRET, body.challenge));
      },
    ],
    handler: async ({ body, res: http }) => {
      http.setHeader('Cache-Control', 'no-store');
      const res = await clients.auth.loginSecondFactor(body);
      return { message: 'Login successful', token: res.token, user: toUser(res.user) };
    },
  });

  t.add({
    method: 'post',
    path: '/api/auth/step-up',
    operationId: 'stepUp',
    summary:
      'Give the second factor again: answers a step-up token for this session (5 minutes) that actions ' +
      'needing step-up accept in the X-Coffer-Step-Up header',
    tag: 'auth',
    access: 'user',
    body: z.object({ code: secondFactorCode }),
    response: z.object({
      stepUpToken: z.string(),
      expiresAt: z.string().describe('ISO time the token stops working'),
    }),
    errors: {
      BAD_INPUT: 'the code is wrong, expired or already used (code TWO_FACTOR_CODE_INVALID)',
      CONFLICT: 'two-factor sign-in is off: there is nothing to step up to',
      LIMIT_REACHED: { when: 'too many code attempts for this account', body: rateLimitedBody },
    },
    before: [({ caller }) => codeAttempts(caller.id)],
    handler: async ({ caller, body, res: http }) => {
      http.setHeader('Cache-Control', 'no-store');
      if (!caller.twoFactorEnabled)
        throw conflict('Two-factor sign-in is off: turn it on in Profile → Security first.');
      const res = await clients.auth.issueStepUpToken({
        userId: caller.id,
        sessionId: caller.session?.id ?? '',
        code: body.code,
      });
      return { stepUpToken: res.token, expiresAt: res.expiresAt };
    },
  });

  t.add({
    method: 'post',
    path: '/api/auth/register',
    operationId: 'register',
    summary: 'Create an account on the Free plan and sign in',
    tag: 'auth',
    access: 'public',
    status: 201,
    body: z.object({ name: fields.name, email: fields.email, password: fields.password }),
    response: sessionAnswer,
    errors: {
      CONFLICT: 'an account with this e-mail exists',
      LIMIT_REACHED: { when: 'too many sign-ups from this address', body: rateLimitedBody },
    },
    before: [
      ({ req }) =>
        rateLimit(
          [{ key: `register:ip:${req.ip}`, limit: config.RATE_REGISTER_PER_IP }],
          'Too many accounts created from this address. Please wait a while and try again.',
        ),
    ],
    handler: async ({ body, res: http }) => {
      http.setHeader('Cache-Control', 'no-store');
      const res = await clients.auth.register(body);
      return { message: 'Registration successful', token: res.token, user: toUser(res.user) };
    },
  });

  t.add({
    method: 'post',
    path: '/api/auth/logout',
    operationId: 'logout',
    summary:
      "Sign out: this session's token is refused from now on and its live connections close (other sessions stay)",
    tag: 'auth',
    access: 'user',
    // A suspended account may still end its session (the suspended page has Sign Out).
    allowSuspended: true,
    response: messageBody,
    handler: async ({ caller }) => {
      const { session } = caller;
      if (!session) throw unauthenticated('Authentication required');
      await clients.auth.endSession({
        userId: caller.id,
        sessionId: session.id,
        expiresAt: new Date(session.expiresAt).toISOString(),
      });
      // Refused here at once; other gateways see it when their cached state expires.
      deps.identity.forget(caller.id);
      deps.browsers.closeSession(session.id);
      return { message: 'Logged out' };
    },
  });

  t.add({
    method: 'post',
    path: '/api/auth/forgot-password',
    operationId: 'forgotPassword',
    summary: 'Mail a one-hour password reset link; answers the same for unknown e-mails',
    tag: 'auth',
    access: 'public',
    body: z.object({ email: fields.email }),
    response: messageBody.extend({ resetToken: z.string().optional(), resetUrl: z.string().optional() }),
    errors: {
      LIMIT_REACHED: {
        when: 'too many requests from this address or for this e-mail',
        body: rateLimitedBody,
      },
    },
    before: [
      ({ body, req }) =>
        rateLimit(
          [
            { key: `forgot:ip:${req.ip}`, limit: config.RATE_FORGOT_PER_IP },
            { key: `forgot:email:${body.email.toLowerCase()}`, limit: config.RATE_FORGOT_PER_EMAIL },
          ],
          'Too many password reset requests. Please wait a while and try again.',
        ),
    ],
    handler: async ({ body }) => {
      const res = await clients.auth.requestPasswordReset(body);
      return { message: FORGOT_MESSAGE, resetToken: res.resetToken, resetUrl: res.resetUrl };
    },
  });

  t.add({
    method: 'get',
    path: '/api/auth/reset-password/:token',
    operationId: 'verifyResetToken',
    summary: 'Check that a reset token is valid',
    tag: 'auth',
    access: 'public',
    params: tokenParam,
    response: messageBody.extend({ valid: z.boolean() }),
    errors: { BAD_INPUT: 'the token is invalid, expired or used' },
    handler: async ({ params }) => {
      await clients.auth.verifyResetToken(params);
      return { message: 'Token is valid', valid: true };
    },
  });

  t.add({
    method: 'post',
    path: '/api/auth/reset-password/:token',
    operationId: 'resetPassword',
    summary: 'Set a new password with a reset token (single use; ends other sessions)',
    tag: 'auth',
    access: 'public',
    params: tokenParam,
    body: z.object({ password: fields.password }),
    response: messageBody,
    errors: { BAD_INPUT: 'the token is invalid, expired or used' },
    handler: async ({ params, body }) => {
      await clients.auth.resetPassword({ token: params.token, password: body.password });
      return { message: 'Password has been reset successfully' };
    },
  });
}
