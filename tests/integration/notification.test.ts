import { api, baseUrl, mailsTo, newUser, waitForMail } from './helpers';

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
