import type { handleUnaryCall, ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { createLogger } from '@coffer/common';
import { INVALID_CONFIRM_LINK } from './domain/email-change';
import { buildNotification } from './build';
import { fakeAccounts, fakeEventBus, fakeMailer, fakeOutbox, fakePreferencesStore } from './store.fake';

const USER = '64b7f0c2a1b2c3d4e5f60718';

function call<Req, Res>(fn: handleUnaryCall<Req, Res>, request: Req) {
  return new Promise<Res>((resolve, reject) => {
    const cb: sendUnaryData<Res> = (err, res) => (err ? reject(err) : resolve(res!));
    fn({ request } as ServerUnaryCall<Req, Res>, cb);
  });
}

function setup() {
  const events = fakeEventBus();
  const mailer = fakeMailer();
  const { handlers: h } = buildNotification({
    prefsStore: fakePreferencesStore(),
    outbox: fakeOutbox(),
    events,
    mailer,
    accounts: fakeAccounts(),
    publicUrl: 'http://127.0.0.1:8080',
    testMailCooldownMs: 10_000,
    log: createLogger('test', 'silent'),
  });
  return { h, events, mailer };
}

describe('UpdatePreferences', () => {
  it('publishes settings.notifications.updated once per real toggle change', async () => {
    const { h, events } = setup();
    const res = await call(h.updatePreferences, { userId: USER, backupSuccess: false });
    expect(res).toEqual({
      backupSuccess: false,
      backupFailure: true,
      agentDisconnection: true,
      email: undefined,
      pendingEmail: undefined,
      pendingEmailExpiresAt: undefined,
    });
    await call(h.updatePreferences, { userId: USER, backupSuccess: false, email: '' });
    expect(events.published.map((e) => [e.subject, e.data])).toEqual([
      [
        'settings.notifications.updated',
        { userId: USER, backupSuccess: false, backupFailure: true, agentDisconnection: true },
      ],
    ]);
  });
});

describe('changing the notification address', () => {
  it('refuses a new address through UpdatePreferences: it must be confirmed first', async () => {
    const { h } = setup();
    await expect(call(h.updatePreferences, { userId: USER, email: 'ops@example.com' })).rejects.toMatchObject(
      {
        code: status.INVALID_ARGUMENT,
        details: 'A new notification email must be confirmed: use RequestEmailChange',
      },
    );
  });

  it('answers with the address waiting for confirmation, and refuses a malformed link token', async () => {
    const { h } = setup();
    const res = await call(h.requestEmailChange, {
      userId: USER,
      accountEmail: 'ada@example.com',
      name: 'Ada',
      email: 'Ops@Example.com',
    });
    expect(res).toMatchObject({ email: undefined, pendingEmail: 'ops@example.com' });
    expect(Date.parse(res.pendingEmailExpiresAt!)).toBeGreaterThan(Date.now());
    await expect(call(h.confirmEmailChange, { token: 'x' })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: INVALID_CONFIRM_LINK,
    });
  });
});

describe('SendPasswordReset', () => {
  const request = {
    userId: USER,
    email: 'ada@example.com',
    name: 'Ada',
    resetUrl: 'http://127.0.0.1:8080/reset-password/s3cr3t-t0ken-value',
    requestId: 'b9d1c1e4-6f55-4a53-9f5e-6a0e1f1b2c3d',
  };

  it('mails the link to the given address once per request id', async () => {
    const { h, mailer } = setup();
    await call(h.sendPasswordReset, request);
    await call(h.sendPasswordReset, request);
    expect(mailer.sent.map((m) => [m.to, m.subject])).toEqual([
      ['ada@example.com', 'Reset your Coffer password'],
    ]);
  });

  it('refuses a request that is not a reset link for an address', async () => {
    const { h, mailer } = setup();
    await expect(call(h.sendPasswordReset, { ...request, resetUrl: 'not a url' })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: 'Invalid reset link',
    });
    await expect(call(h.sendPasswordReset, { ...request, email: 'nope' })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    expect(mailer.sent).toEqual([]);
  });
});
