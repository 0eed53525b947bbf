import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { smtpMailer, toDeliveryError } from './mailer';

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** A minimal SMTP server (enough of RFC 5321 for nodemailer) that refuses @refused.test recipients. */
function miniSmtp(received: Received[]) {
  return net.createServer((socket) => {
    let buffer = '';
    let inData = false;
    let mail: Received = { from: '', to: [], data: '' };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 mini ESMTP');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          mail.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          received.push(mail);
          mail = { from: '', to: [], data: '' };
          reply('250 queued');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        const addr = /<([^>]*)>/.exec(line)?.[1] ?? '';
        if (verb === 'EHLO' || verb === 'HELO') {
          reply('250 mini');
        } else if (verb === 'MAIL') {
          mail.from = addr;
          reply('250 ok');
        } else if (verb === 'RCPT') {
          if (addr.endsWith('@refused.test')) {
            reply('550 5.1.1 No such user');
          } else {
            mail.to.push(addr);
            reply('250 ok');
          }
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 go ahead');
        } else if (verb === 'RSET') {
          mail = { from: '', to: [], data: '' };
          reply('250 ok');
        } else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else reply('502 not implemented');
      }
    });
  });
}

describe('SMTP mailer', () => {
  const received: Received[] = [];
  const server = miniSmtp(received);
  let port: number;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('delivers text and HTML from MAIL_FROM to the recipient', async () => {
    const mailer = smtpMailer({
      host: '127.0.0.1',
      port,
      secure: false,
      from: 'Coffer <no-reply@coffer.local>',
    });
    const res = await mailer.send('ada@example.com', {
      subject: 'Hello',
      text: 'plain body',
      html: '<p>html body</p>',
    });
    mailer.close();
    expect(res.messageId).toBeTruthy();
    const mail = received.at(-1)!;
    expect(mail.from).toBe('no-reply@coffer.local');
    expect(mail.to).toEqual(['ada@example.com']);
    expect(mail.data).toContain('Subject: Hello');
    expect(mail.data).toContain('plain body');
    expect(mail.data).toContain('<p>html body</p>');
  });

  it('reports a refused recipient as permanent', async () => {
    const mailer = smtpMailer({ host: '127.0.0.1', port, secure: false, from: 'no-reply@coffer.local' });
    await expect(
      mailer.send('nobody@refused.test', { subject: 's', text: 't', html: 'h' }),
    ).rejects.toMatchObject({
      name: 'MailDeliveryError',
      permanent: true,
    });
    mailer.close();
  });

  it('reports an unreachable server as worth retrying', async () => {
    const mailer = smtpMailer({ host: '127.0.0.1', port: 1, secure: false, from: 'no-reply@coffer.local' });
    await expect(
      mailer.send('ada@example.com', { subject: 's', text: 't', html: 'h' }),
    ).rejects.toMatchObject({
      permanent: false,
    });
    mailer.close();
  });

  it('treats 4xx answers as temporary', () => {
    expect(toDeliveryError({ message: 'try later', responseCode: 451 }).permanent).toBe(false);
  });
});
