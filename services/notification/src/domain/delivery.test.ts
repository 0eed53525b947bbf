import { MailDeliveryError } from '../mail/mailer';
import { fakeMailer, fakeOutbox } from '../store.fake';
import { delivery, SEND_LOCK_MS } from './delivery';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const T0 = new Date('2025-05-01T10:00:00.000Z');
const log = { info: jest.fn(), warn: jest.fn(), debug: jest.fn() };

function setup() {
  const outbox = fakeOutbox();
  const mailer = fakeMailer();
  let clock = T0;
  const d = delivery({ outbox, mailer, log, now: () => clock });
  const input = {
    eventId: 'evt-1',
    userId: USER,
    kind: 'passwordReset',
    to: 'ada@example.com',
    build: () => ({ subject: 'Reset', text: 'link', html: '<p>link</p>' }),
  };
  return { outbox, mailer, d, input, advance: (ms: number) => (clock = new Date(clock.getTime() + ms)) };
}

describe('exactly-once delivery', () => {
  it('sends the mail and records it as sent', async () => {
    const { d, input, mailer, outbox } = setup();
    await expect(d.sendOnce(input)).resolves.toBe('sent');
    expect(mailer.sent).toHaveLength(1);
    expect(mailer.sent[0]!.to).toBe('ada@example.com');
    expect(outbox.records.get('evt-1')).toMatchObject({ status: 'sent', messageId: '<1@test>' });
  });

  it('keeps no address of an account deleted while its mail was on the way', async () => {
    // Deleted before the mail's record was written: the mail is not sent at all.
    const early = setup();
    await early.outbox.forgetUser(USER);
    await expect(early.d.sendOnce(early.input)).resolves.toBe('refused');
    expect(early.mailer.sent).toEqual([]);
    expect(early.outbox.records.get('evt-1')).toMatchObject({ to: '(deleted account)', status: 'failed' });

    // Deleted while the SMTP server took it: the record written as 'sent' afterwards loses the address.
    const late = setup();
    const send = late.mailer.send;
    late.mailer.send = async (to, mail) => {
      await late.outbox.forgetUser(USER);
      return send(to, mail);
    };
    await expect(late.d.sendOnce(late.input)).resolves.toBe('sent');
    const record = late.outbox.records.get('evt-1')!;
    expect(record.to).toBe('(deleted account)');
    expect(JSON.stringify([...late.outbox.records.values()])).not.toContain('ada@example.com');
  });

  it('does not send again when the event is delivered a second time', async () => {
    const { d, input, mailer } = setup();
    await d.sendOnce(input);
    await expect(d.sendOnce(input)).resolves.toBe('already-handled');
    expect(mailer.sent).toHaveLength(1);
  });

  it('asks for a retry when the SMTP server is unreachable, and sends on the retry', async () => {
    const { d, input, mailer, outbox } = setup();
    mailer.fail = new MailDeliveryError('connect ECONNREFUSED', false);
    await expect(d.sendOnce(input)).rejects.toThrow('ECONNREFUSED');
    expect(outbox.records.get('evt-1')!.status).toBe('sending');
    mailer.fail = null;
    await expect(d.sendOnce(input)).resolves.toBe('sent');
    expect(mailer.sent).toHaveLength(1);
    expect(outbox.records.get('evt-1')).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('gives up on a permanent refusal instead of retrying forever', async () => {
    const { d, input, mailer, outbox } = setup();
    mailer.fail = new MailDeliveryError('550 No such user', true);
    await expect(d.sendOnce(input)).resolves.toBe('refused');
    expect(outbox.records.get('evt-1')!.status).toBe('failed');
    mailer.fail = null;
    await expect(d.sendOnce(input)).resolves.toBe('already-handled');
    expect(mailer.sent).toHaveLength(0);
  });

  it('leaves a mail another worker is sending alone until that worker’s claim lapses', async () => {
    const { d, input, mailer, outbox, advance } = setup();
    // A worker wrote 'sending' and died before the SMTP server answered.
    await outbox.insert({
      eventId: 'evt-1',
      userId: USER,
      kind: 'passwordReset',
      to: 'ada@example.com',
      status: 'sending',
      lockedUntil: new Date(T0.getTime() + SEND_LOCK_MS),
      attempts: 1,
      createdAt: T0,
    });
    await expect(d.sendOnce(input)).rejects.toThrow(/another worker/);
    expect(mailer.sent).toHaveLength(0);
    advance(SEND_LOCK_MS);
    await expect(d.sendOnce(input)).resolves.toBe('sent');
    expect(mailer.sent).toHaveLength(1);
  });

  it('does not send a mail whose moment has passed', async () => {
    const { d, input, mailer } = setup();
    await expect(d.sendOnce({ ...input, validUntil: T0 })).resolves.toBe('expired');
    expect(mailer.sent).toHaveLength(0);
  });
});
