import { z } from 'zod';
import { fields } from '@coffer/common';
import type { Clients } from '../clients.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { rateLimitedBody } from '../http/errors.js';
import { messageBody, type RouteTable } from '../http/route.js';
import { toUser, userView } from '../views.js';
import type { GatewayConfig } from '../config.js';

const FORGOT_MESSAGE = 'If an account with that email exists, a password reset link has been sent.';
const tokenParam = z.object({ token: z.string().min(1).max(200) });

/** /api/auth/*: sign-up, sign-in and password recovery (spec §7). */
export function authRoutes(
  t: RouteTable,
  deps: { clients: Clients; rateLimit: RateLimiter; config: GatewayConfig },
) {
  const { clients, rateLimit, config } = deps;
  const sessionAnswer = z.object({ message: z.string(), token: z.string(), user: userView });

  t.add({
    method: 'post',
    path: '/api/auth/login',
    operationId: 'login',
    summary: 'Sign in; banned accounts get their ban details instead of an error',
    tag: 'auth',
    access: 'public',
    body: z.object({ email: fields.email, password: z.string().min(1, 'Password is required').max(128) }),
    response: sessionAnswer,
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
      await attempt.refund();
      return { message: 'Login successful', token: res.token, user: toUser(res.user) };
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
