import nodemailer from 'nodemailer';
import type { Mail } from './templates.js';

/** A mail the SMTP server refused or could not take; permanent refusals are not worth retrying. */
export class MailDeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the mail. Rejects with a MailDeliveryError. */
  send(to: string, mail: Mail): Promise<{ messageId: string }>;
  close(): void;
}

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  pass?: string;
  from: string;
}

/** Sends through one SMTP server with pooled connections and bounded waits at every step. */
export function smtpMailer(s: SmtpSettings): Mailer {
  const transport = nodemailer.createTransport({
    host: s.host,
    port: s.port,
    secure: s.secure,
    auth: s.user ? { user: s.user, pass: s.pass ?? '' } : undefined,
    pool: true,
    maxConnections: 3,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(to, mail) {
      try {
        const info = await transport.sendMail({
          from: s.from,
          to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        });
        return { messageId: info.messageId };
      } catch (err) {
        throw toDeliveryError(err);
      }
    },
    close: () => transport.close(),
  };
}

/** 5xx answers and refused envelopes are permanent; connection trouble and 4xx are worth a retry. */
export function toDeliveryError(err: unknown): MailDeliveryError {
  const e = err as { message?: string; responseCode?: number; code?: string };
  const permanent = (typeof e.responseCode === 'number' && e.responseCode >= 500) || e.code === 'EENVELOPE';
  return new MailDeliveryError(e.message ?? 'mail delivery failed', permanent);
}
