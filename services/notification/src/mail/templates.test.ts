import { appLinks, templates } from './templates';

const RESET_URL = 'http://127.0.0.1:8080/reset-password/3q2-_abcDEF123';

describe('mail templates', () => {
  it('puts the reset link in both parts and says it expires in one hour', () => {
    const mail = templates.passwordReset({ name: 'Ada', resetUrl: RESET_URL });
    expect(mail.subject).toBe('Reset your Coffer password');
    expect(mail.text).toContain(RESET_URL);
    expect(mail.html).toContain(`href="${RESET_URL}"`);
    expect(mail.text).toMatch(/expires in one hour/);
    expect(mail.html).toMatch(/expires in one hour/);
    expect(mail.text.startsWith('Hi Ada,')).toBe(true);
  });

  it('escapes user-provided text in the HTML part', () => {
    const mail = templates.passwordReset({
      name: '<img src=x onerror=alert(1)>',
      resetUrl: `${RESET_URL}?a=1&b="2"`,
    });
    expect(mail.html).not.toContain('<img src=x');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(mail.html).toContain(
      'href="http://127.0.0.1:8080/reset-password/3q2-_abcDEF123?a=1&amp;b=&quot;2&quot;"',
    );
  });

  it('greets without a name when the user has none', () => {
    expect(templates.passwordReset({ name: '  ', resetUrl: RESET_URL }).text.startsWith('Hi,\n')).toBe(true);
  });

  it('links the test notification to the notification settings of the public address', () => {
    const mail = templates.testNotification({ name: 'Ada' }, appLinks('https://coffer.example.com/'));
    expect(mail.subject).toBe('Coffer test notification');
    expect(mail.text).toContain('https://coffer.example.com/settings?tab=notifications');
    expect(mail.html).toContain('href="https://coffer.example.com/settings?tab=notifications"');
  });
});
