import { z } from 'zod';
import {
  accountStatus,
  fields,
  pageFields,
  parseInput,
  role,
  unaryHandlers,
  userTokenOf,
  type Logger,
} from '@coffer/common';
import { auth } from '@coffer/proto';
import type { Accounts } from './domain/accounts.js';
import type { Sessions } from './domain/sessions.js';
import type { PasswordReset } from './domain/password-reset.js';
import type { Plans } from './domain/plans.js';
import { toPlanMessage } from './domain/plans.js';
import type { Views } from './domain/views.js';
import type { Admin } from './domain/admin.js';
import type { Billing } from './domain/billing.js';
import type { AdminActor } from './domain/admin-actor.js';
import type { TokenIssuer } from './domain/tokens.js';
import type { TwoFactor } from './domain/two-factor.js';

const userId = fields.objectId('user');
const token = z.string().min(1, 'Invalid reset token').max(200, 'Invalid reset token');
const secondFactorCode = z
  .string()
  .trim()
  .min(1, 'Enter the code from your authenticator app or a recovery code')
  .max(32, 'That code is too long: enter the six digits from your authenticator app or a recovery code');

/** gRPC edge of auth: validate, call the domain, shape the answer. */
export function authHandlers(deps: {
  log: Logger;
  accounts: Accounts;
  sessions: Sessions;
  reset: PasswordReset;
  plans: Plans;
  admin: Admin;
  views: Views;
  billing: Billing;
  twoFactor: TwoFactor;
  issueToken: TokenIssuer;
  /** The admin a call acts for, from the user token it carries. */
  adminActor: AdminActor;
  exposeResetToken: boolean;
}) {
  const { accounts, reset, plans, admin, views, twoFactor } = deps;
  // The id of the admin whose session token the call carries (the gateway passes it on).
  const actor = async (call: Parameters<typeof userTokenOf>[0]) =>
    (await deps.adminActor(userTokenOf(call))).id;
  const accountState = async (userId: string) => {
    const user = await accounts.load(userId);
    const [ended, tf] = await Promise.all([deps.sessions.ended(user.id), twoFactor.status(user)]);
    return views.accountState(user, ended, tf);
  };
  return unaryHandlers<auth.AuthServiceServer>(deps.log, {
    async register(req) {
      const input = parseInput(
        z.object({ name: fields.name, email: fields.email, password: fields.password }),
        req,
      );
      const { user, token: t } = await accounts.register(input);
      return { token: t, user: views.user(user) };
    },
    async login(req) {
      const input = parseInput(z.object({ email: fields.email, password: z.string().min(1).max(128) }), req);
      const r = await accounts.login(input.email, input.password);
      if (r.challenge !== undefined) return { token: '', user: undefined, challenge: r.challenge };
      return { token: r.token, user: views.user(r.user) };
    },
    async loginSecondFactor(req) {
      const input = parseInput(
        z.object({ challenge: z.string().min(1).max(2000), code: secondFactorCode }),
        req,
      );
      const user = await twoFactor.completeSignIn(input.challenge, input.code);
      return { token: deps.issueToken(user), user: views.user(user) };
    },
    async getTwoFactor(req) {
      return twoFactor.status(await accounts.load(parseInput(z.object({ userId }), req).userId));
    },
    async startTwoFactorEnrolment(req) {
      return twoFactor.startEnrolment(parseInput(z.object({ userId }), req).userId);
    },
    async confirmTwoFactorEnrolment(req) {
      const input = parseInput(z.object({ userId, code: secondFactorCode }), req);
      return { codes: await twoFactor.confirmEnrolment(input.userId, input.code) };
    },
    async disableTwoFactor(req) {
      await twoFactor.disable(parseInput(z.object({ userId }), req).userId);
      return {};
    },
    async regenerateRecoveryCodes(req) {
      return { codes: await twoFactor.regenerateRecoveryCodes(parseInput(z.object({ userId }), req).userId) };
    },
    async verifySecondFactor(req) {
      const input = parseInput(z.object({ userId, code: secondFactorCode }), req);
      await twoFactor.verify(input.userId, input.code);
      return {};
    },
    async issueStepUpToken(req) {
      const input = parseInput(
        z.object({ userId, sessionId: z.string().min(1).max(64), code: secondFactorCode }),
        req,
      );
      const r = await twoFactor.stepUp(input.userId, input.sessionId, input.code);
      return { token: r.token, expiresAt: r.expiresAt.toISOString() };
    },
    async getSecuritySettings() {
      return twoFactor.policy();
    },
    async adminSetSecuritySettings(req, call) {
      const actorId = await actor(call);
      const input = parseInput(z.object({ requireAdminTwoFactor: z.boolean() }), req);
      return twoFactor.setPolicy(actorId, input.requireAdminTwoFactor);
    },
    async requestPasswordReset(req) {
      const { email } = parseInput(z.object({ email: fields.email }), req);
      const requested = await reset.request(email);
      if (!deps.exposeResetToken) return {};
      // Dev builds only, which show the link: it must work once shown.
      await requested.handedOff;
      return { resetToken: requested.token, resetUrl: requested.url };
    },
    async verifyResetToken(req) {
      await reset.verify(parseInput(z.object({ token }), req).token);
      return {};
    },
    async resetPassword(req) {
      const input = parseInput(z.object({ token, password: fields.password }), req);
      await reset.reset(input.token, input.password);
      return {};
    },
    async getAccountState(req) {
      return accountState(parseInput(z.object({ userId }), req).userId);
    },
    async endSession(req) {
      const input = parseInput(
        z.object({ userId, sessionId: z.string().min(1).max(64), expiresAt: z.iso.datetime() }),
        req,
      );
      await deps.sessions.end(input.userId, input.sessionId, new Date(input.expiresAt));
      return {};
    },
    async getProfile(req) {
      return views.profile(await accounts.load(parseInput(z.object({ userId }), req).userId));
    },
    async updateProfile(req) {
      const input = parseInput(
        z.object({
          userId,
          name: fields.name.optional(),
          email: fields.email.optional(),
          currentPassword: z.string().max(128).optional(),
        }),
        req,
      );
      return views.profile(await accounts.updateProfile(input.userId, input));
    },
    async changePassword(req) {
      const input = parseInput(
        z.object({
          userId,
          currentPassword: z.string().min(1, 'Current password is required').max(128),
          newPassword: fields.password,
        }),
        req,
      );
      return { token: await accounts.changePassword(input.userId, input.currentPassword, input.newPassword) };
    },
    async regenerateApiKey(req) {
      return { apiKey: await accounts.regenerateApiKey(parseInput(z.object({ userId }), req).userId) };
    },
    async resolveApiKey(req) {
      const { apiKey } = parseInput(z.object({ apiKey: z.string().min(1).max(200) }), req);
      return views.accountState(await accounts.resolveApiKey(apiKey));
    },
    async listPlans() {
      return { plans: (await plans.list()).map(toPlanMessage) };
    },
    async getUserPlan(req) {
      return toPlanMessage(await plans.ofUser(parseInput(z.object({ userId }), req).userId));
    },
    async requestPlanChange(req) {
      const input = parseInput(z.object({ userId, planId: fields.objectId('plan') }), req);
      const r = await deps.billing.requestChange(input.userId, input.planId);
      return {
        plan: toPlanMessage(r.plan),
        changed: r.changed,
        ...(r.checkoutUrl ? { checkoutUrl: r.checkoutUrl } : {}),
        ...(r.effectiveAt ? { effectiveAt: r.effectiveAt.toISOString() } : {}),
        ...(r.nextPlan ? { nextPlan: toPlanMessage(r.nextPlan) } : {}),
      };
    },
    async getBilling(req) {
      const state = await deps.billing.state(parseInput(z.object({ userId }), req).userId);
      const s = state.subscription;
      return {
        enabled: state.enabled,
        ...(s
          ? {
              subscription: {
                planId: s.planId,
                status: s.status,
                cancelAtPeriodEnd: s.cancelAtPeriodEnd,
                ...(s.currentPeriodEnd ? { currentPeriodEnd: s.currentPeriodEnd.toISOString() } : {}),
                ...(s.pendingPlanId ? { pendingPlanId: s.pendingPlanId } : {}),
              },
            }
          : {}),
      };
    },
    async handleBillingWebhook(req) {
      return deps.billing.webhook(Buffer.from(req.payload ?? []), req.signature ?? '');
    },
    async verifyAdmin(_req, call) {
      const a = await deps.adminActor(userTokenOf(call));
      return { userId: a.id, name: a.name };
    },
    async adminListUsers(req, call) {
      await actor(call);
      const page = parseInput(z.object(pageFields('user')), req);
      return { users: (await admin.list(page)).map(views.adminUser) };
    },
    async adminUpdateUser(req, call) {
      const actorId = await actor(call);
      const input = parseInput(
        z.object({
          userId,
          plan: fields.objectId('plan').optional(),
          role: role.schema.optional(),
          status: accountStatus.schema.optional(),
          email: fields.email.optional(),
        }),
        req,
      );
      return views.adminUser(await admin.update(actorId, input.userId, input));
    },
    async adminSetBan(req, call) {
      const actorId = await actor(call);
      const input = parseInput(
        z.object({
          userId,
          isBanned: z.boolean(),
          banReason: z.string().max(500).optional(),
        }),
        req,
      );
      const s = await admin.setBan(actorId, input.userId, input.isBanned, input.banReason);
      return {
        isBanned: s.isBanned,
        banReason: s.banReason ?? undefined,
        bannedAt: s.bannedAt?.toISOString(),
      };
    },
    async adminDeleteUser(req, call) {
      const actorId = await actor(call);
      const input = parseInput(z.object({ userId }), req);
      await admin.remove(actorId, input.userId);
      return {};
    },
  });
}
