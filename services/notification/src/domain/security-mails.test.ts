import { fakeMailer, fakeOutbox } from '../store.fake';
import { delivery } from './delivery';
import { securityMails } from './security-mails';
import { expectOneMail } from '../testing/expect-mail';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const RESET_URL = 'http://127.0.0.1:8080/reset-password/s3cr3t-t0ken-value';

function setup() {
  const outbox = fakeOutbox();
  const mailer = fakeMailer();
  const log = { info: jest.fn(), warn: jest.fn(), debug: jest.fn() };
  const mails = securityMails({ delivery: delivery({ outbox, mailer, log }) });
  return { outbox, mailer, log, mails };
}
const reset = {
  userId: USER,
  email: 'ada@example.com',
  name: 'Ada',
  resetUrl: RESET_URL,
  requestId: 'req-1-abcdef',
};

describe('security mails', () => {
  it('mails the reset link to the given account address once per request, however often auth retries', async () => {
    const { mails, mailer } = setup();
    await mails.passwordReset(reset);
    await mails.passwordReset(reset);
    expect(mailer.sent).toHaveLength(1);
    expect(mailer.sent[0]).toMatchObject({ to: 'ada@example.com', subject: 'Reset your Coffer password' });
    expect(mailer.sent[0]!.text).toContain(RESET_URL);
    await mails.passwordReset({ ...reset, requestId: 'req-2-abcdef' });
    expect(mailer.sent).toHaveLength(2);
  });

  it('keeps the reset link out of log lines and the outbox', async () => {
    const { mails, log, mailer, outbox } = setup();
    await mails.passwordReset(reset);
    mailer.fail = new Error('connect ECONNREFUSED');
    await expect(mails.passwordReset({ ...reset, requestId: 'req-3-abcdef' })).rejects.toThrow();
    const kept = JSON.stringify([
      log.info.mock.calls,
      log.warn.mock.calls,
      log.debug.mock.calls,
      [...outbox.records.values()],
    ]);
    expect(kept).not.toContain('s3cr3t-t0ken-value');
  });

  it('tells the previous account address that the e-mail changed, and to where', async () => {
    const { mails, mailer } = setup();
    await mails.accountEmailChanged({
      userId: USER,
      previousEmail: 'ada@example.com',
      newEmail: 'ada@new.example.com',
      name: 'Ada',
      requestId: 'req-4-abcdef',
    });
    expectOneMail(mailer, {
      to: 'ada@example.com',
      subject: 'Your Coffer account email was changed',
      text: ['ada@new.example.com', 'reset your password'],
    });
  });
});
