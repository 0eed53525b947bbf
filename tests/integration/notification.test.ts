import { MongoClient } from 'mongodb';
import {
  api,
  baseUrl,
  eventually,
  mailsTo,
  newUser,
  uniqueEmail,
  waitForMail,
  type TestUser,
} from './helpers';

describe('POST /api/settings/test-notification', () => {
  it('needs a token', async () => {
    expect((await api('POST', '/api/settings/test-notification')).status).toBe(401);
  });

  it("mails a test notification to the caller's address", async () => {
    const u = await newUser('notify');
    const res = await api('POST', '/api/settings/test-notification', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Test notification sent successfully. Please check your email.');

    const mail = await waitForMail(u.email, (m) => m.subject === 'Coffer test notification');
    expect(mail.text).toContain(`Hi ${u.name},`);
    expect(mail.text).toContain(`${baseUrl()}/settings?tab=notifications`);
    expect(mail.html).toContain(`href="${baseUrl()}/settings?tab=notifications"`);
  });

  it('refuses a second test mail right after the first, so an address cannot be flooded', async () => {
    const u = await newUser('notify');
    expect((await api('POST', '/api/settings/test-notification', { token: u.token })).status).toBe(200);
    const again = await api('POST', '/api/settings/test-notification', { token: u.token });
    expect(again.status).toBe(429);
    expect(again.body.message).toMatch(/wait/);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    await waitForMail(u.email);
    expect(await mailsTo(u.email)).toHaveLength(1);
  });
});

describe('password reset mail', () => {
  it('arrives once, with the link in text and HTML and its one-hour expiry', async () => {
    const u = await newUser('reset');
    expect((await api('POST', '/api/auth/forgot-password', { body: { email: u.email } })).status).toBe(200);
    const mail = await waitForMail(u.email, (m) => m.subject === 'Reset your Coffer password');
    const link = new RegExp(
      `${baseUrl().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/reset-password/[A-Za-z0-9_-]+`,
    );
    const url = link.exec(mail.text)?.[0];
    expect(url).toBeDefined();
    expect(mail.html).toContain(`href="${url}"`);
    expect(mail.text).toContain('expires in one hour');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await mailsTo(u.email)).toHaveLength(1);
  });
});

describe('changing the notification email', () => {
  const CONFIRM_SUBJECT = 'Confirm your Coffer notification email';
  const linkIn = (text: string) => {
    const base = baseUrl().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const m = new RegExp(`${base}/confirm-notification-email/([A-Za-z0-9_-]+)`).exec(text);
    if (!m) throw new Error('no confirmation link in the mail');
    return { url: m[0], token: m[1]! };
  };
  const confirm = (token: string) =>
    api('POST', '/api/settings/notification-email/confirm', { body: { token } });
  const settingsOf = async (u: TestUser) => (await api('GET', '/api/settings', { token: u.token })).body;
  /** A test notification, retried while the per-user cooldown (a few seconds) refuses it. */
  const testMail = (u: TestUser) =>
    eventually(async () => {
      const res = await api('POST', '/api/settings/test-notification', { token: u.token });
      expect(res.status).toBe(200);
    }, 20_000);

  it('needs a token to resend or cancel, and refuses a bad address or link with a clear 400', async () => {
    expect((await api('POST', '/api/settings/notification-email/resend')).status).toBe(401);
    expect((await api('DELETE', '/api/settings/notification-email/pending')).status).toBe(401);
    const u = await newUser('notify');
    const bad = await api('PUT', '/api/settings', { token: u.token, body: { email: 'not-an-address' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Please enter a valid email address');
    const forged = await confirm('A'.repeat(43));
    expect(forged.status).toBe(400);
    expect(forged.body.message).toBe(
      'This confirmation link is not valid: it was already used, or a newer link replaced it.',
    );
    expect((await confirm('')).status).toBe(400);
    const nothing = await api('POST', '/api/settings/notification-email/resend', { token: u.token });
    expect(nothing.status).toBe(409);
    expect(nothing.body.message).toBe('No notification email is waiting for confirmation.');
  });

  it('mails a link to the new address, keeps notifying the old one until it is opened, then the new one', async () => {
    const u = await newUser('notify');
    const next = uniqueEmail('ops');
    const saved = await api('PUT', '/api/settings', { token: u.token, body: { email: next } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ email: u.email, pendingEmail: next });

    const mail = await waitForMail(next, (m) => m.subject === CONFIRM_SUBJECT);
    const { url, token } = linkIn(mail.text);
    expect(mail.html).toContain(`href="${url}"`);
    expect(mail.text).toContain('expires in 24 hours');

    // Before confirmation: notifications still go to the account address only.
    await testMail(u);
    await waitForMail(u.email, (m) => m.subject === 'Coffer test notification');
    expect((await mailsTo(next)).map((m) => m.subject)).toEqual([CONFIRM_SUBJECT]);

    const ok = await confirm(token);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: `Notifications will now be sent to ${next}.`, email: next });
    const after = await settingsOf(u);
    expect(after.email).toBe(next);
    expect(after.pendingEmail).toBeUndefined();

    await testMail(u);
    await waitForMail(next, (m) => m.subject === 'Coffer test notification');
    expect((await mailsTo(u.email)).filter((m) => m.subject === 'Coffer test notification')).toHaveLength(1);

    // The link works once.
    const again = await confirm(token);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(
      'This confirmation link is not valid: it was already used, or a newer link replaced it.',
    );
  });

  it('refuses an expired link, saying so, and keeps the old address', async () => {
    const u = await newUser('notify');
    const next = uniqueEmail('late');
    expect((await api('PUT', '/api/settings', { token: u.token, body: { email: next } })).status).toBe(200);
    const { token } = linkIn((await waitForMail(next, (m) => m.subject === CONFIRM_SUBJECT)).text);

    // A day passing is played by moving the stored expiry into the past.
    const client = await MongoClient.connect(process.env.COFFER_MONGO_URL!);
    try {
      const res = await client
        .db('coffer_notification')
        .collection('preferences')
        .updateOne({ userId: u.id }, { $set: { pendingEmailExpiresAt: new Date(Date.now() - 1000) } });
      expect(res.modifiedCount).toBe(1);
      // Only the token's hash is stored.
      const doc = await client.db('coffer_notification').collection('preferences').findOne({ userId: u.id });
      expect(JSON.stringify(doc)).not.toContain(token);
    } finally {
      await client.close();
    }

    const late = await confirm(token);
    expect(late.status).toBe(400);
    expect(late.body.message).toBe(
      'This confirmation link has expired. Ask for a new one in Settings → Notifications.',
    );
    expect((await settingsOf(u)).email).toBe(u.email);
  });

  it('resends a fresh link (the old one stops working) and cancels a pending change', async () => {
    const u = await newUser('notify');
    const next = uniqueEmail('ops');
    expect((await api('PUT', '/api/settings', { token: u.token, body: { email: next } })).status).toBe(200);
    const first = linkIn((await waitForMail(next, (m) => m.subject === CONFIRM_SUBJECT)).text);

    const resent = await eventually(async () => {
      const res = await api('POST', '/api/settings/notification-email/resend', { token: u.token });
      expect(res.status).toBe(200);
      return res;
    }, 20_000);
    expect(resent.body.pendingEmail).toBe(next);
    const second = await eventually(async () => {
      const links = (await mailsTo(next)).map((m) => linkIn(m.text).token);
      expect(links).toHaveLength(2);
      return links.find((t) => t !== first.token)!;
    });
    expect((await confirm(first.token)).status).toBe(400);

    const cancelled = await api('DELETE', '/api/settings/notification-email/pending', { token: u.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.pendingEmail).toBeUndefined();
    expect((await confirm(second)).status).toBe(400);
    expect((await settingsOf(u)).email).toBe(u.email);
  });
});
