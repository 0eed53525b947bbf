import { agentLabel, appLinks, templates } from './templates';

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

describe('backup and agent templates', () => {
  const links = appLinks('https://coffer.example.com');
  const at = new Date('2025-05-01T14:03:00.000Z');

  it('puts the backup facts in both parts, and links the dashboard and the notification settings', () => {
    const mail = templates.backupCompleted(
      { name: 'Ada', databaseName: 'orders', size: 5 * 1024 ** 3, type: 'auto', at },
      links,
    );
    expect(mail.subject).toBe('Backup completed');
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('orders');
      expect(part).toContain('5 GB');
      expect(part).toContain('Automatic');
      expect(part).toContain('May 1, 2025, 2:03 PM UTC');
    }
    expect(mail.html).toContain('href="https://coffer.example.com/dashboard"');
    expect(mail.html).toContain('href="https://coffer.example.com/settings?tab=notifications"');
  });

  it('escapes the database name and the error of a failed backup in the HTML part', () => {
    const mail = templates.backupFailed(
      {
        name: 'Ada',
        databaseName: '<b>db</b>',
        error: 'x"><img src=x onerror=alert(1)>',
        type: 'manual',
        at,
      },
      links,
    );
    expect(mail.subject).toBe('Backup failed');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).not.toContain('<b>db</b>');
    expect(mail.html).toContain('&lt;b&gt;db&lt;/b&gt;');
    expect(mail.html).toContain('x&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(mail.text).toContain('Error: x"><img src=x onerror=alert(1)>');
    expect(mail.text).toMatch(/check the Coffer agent/);
  });

  it('shows the start of a very long error, and says so when there is none', () => {
    const long = templates.backupFailed(
      { name: 'Ada', databaseName: 'orders', error: 'e'.repeat(10_000), type: 'manual', at },
      links,
    );
    expect(long.text).not.toContain('e'.repeat(2001));
    expect(long.text).toContain(`${'e'.repeat(1999)}…`);
    const none = templates.backupFailed(
      { name: 'Ada', databaseName: 'orders', error: ' ', type: 'manual', at },
      links,
    );
    expect(none.text).toContain('Error: no details were reported');
  });

  it('names the agent, the time, and that scheduled backups wait for it', () => {
    const mail = templates.agentDisconnected(
      { name: 'Ada', agentName: 'db-box', hostname: 'host-1', at },
      links,
    );
    expect(mail.subject).toBe('Agent disconnected');
    expect(mail.text).toContain('Agent: db-box (host-1)');
    expect(mail.text).toContain('Disconnected: May 1, 2025, 2:03 PM UTC');
    expect(mail.html).toContain('will not run until the agent reconnects');
  });

  it('labels an agent by name and host, or whichever of them it has', () => {
    expect(agentLabel({ name: 'db-box', hostname: 'host-1' })).toBe('db-box (host-1)');
    expect(agentLabel({ name: '', hostname: 'host-1' })).toBe('host-1');
    expect(agentLabel({ name: 'host-1', hostname: 'host-1' })).toBe('host-1');
    expect(agentLabel({ name: 'db-box', hostname: '' })).toBe('db-box');
  });
});
