import type { Logger } from '@coffer/common';
import type { Mail } from '../mail/templates.js';
import { MailDeliveryError, type Mailer } from '../mail/mailer.js';
import type { OutboxStore } from '../store.js';

/** How long one worker holds a mail it is sending: longer than every SMTP timeout together. */
export const SEND_LOCK_MS = 60_000;

export type DeliveryResult = 'sent' | 'already-handled' | 'refused' | 'expired';

/**
 * Sends the mail an event asks for exactly once, even when the event is delivered again: an outbox
 * record keyed by the event id is written before sending ('sending') and marked 'sent' once the SMTP
 * server accepted the mail. Only a crash between that acceptance and the 'sent' write can repeat a
 * mail (there is no transaction spanning SMTP and the database).
 */
export function delivery(deps: {
  outbox: Pick<
    OutboxStore,
    'insert' | 'find' | 'claim' | 'markSent' | 'markFailed' | 'release' | 'forgotten' | 'forgetUser'
  >;
  mailer: Pick<Mailer, 'send'>;
  log: Pick<Logger, 'info' | 'warn' | 'debug'>;
  now?: () => Date;
}) {
  const { outbox, mailer, log } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /**
     * Resolves when the event needs nothing more (sent now or before, refused for good, or too old
     * to be useful); rejects when it should be retried later (SMTP unreachable, another worker busy).
     */
    async sendOnce(input: {
      eventId: string;
      userId: string;
      kind: string;
      to: string;
      /** Past this moment the mail is pointless (e.g. its link expired) and is not sent. */
      validUntil?: Date;
      build: () => Mail;
    }): Promise<DeliveryResult> {
      const ctx = { eventId: input.eventId, userId: input.userId, kind: input.kind };
      const t = now();
      if (input.validUntil && t >= input.validUntil) {
        log.warn(ctx, 'mail not sent: it expired before it could be delivered');
        return 'expired';
      }
      const lockedUntil = new Date(t.getTime() + SEND_LOCK_MS);
      const created = await outbox.insert({
        eventId: input.eventId,
        userId: input.userId,
        kind: input.kind,
        to: input.to,
        status: 'sending',
        lockedUntil,
        attempts: 1,
        createdAt: t,
      });
      if (!created) {
        const existing = await outbox.find(input.eventId);
        if (existing && existing.status !== 'sending') {
          log.debug({ ...ctx, status: existing.status }, 'mail already handled; skipping redelivered event');
          return 'already-handled';
        }
        if (!(await outbox.claim(input.eventId, t, lockedUntil))) {
          throw new Error('another worker is sending this mail; retrying later');
        }
      }

      // The account may be deleted while its mail is on the way. Checked after this mail's record
      // was written: a deletion either finds the record (and drops its address) or is found here.
      if (await outbox.forgotten(input.userId)) {
        await outbox.forgetUser(input.userId);
        log.info(ctx, 'mail not sent: the account was deleted');
        return 'refused';
      }
      try {
        const { messageId } = await mailer.send(input.to, input.build());
        await outbox.markSent(input.eventId, messageId, now());
        // Deleted during the sending: 'sent' may have rewritten the record with its address.
        if (await outbox.forgotten(input.userId)) await outbox.forgetUser(input.userId);
        log.info(ctx, 'mail sent');
        return 'sent';
      } catch (err) {
        if (err instanceof MailDeliveryError && err.permanent) {
          await outbox.markFailed(input.eventId, err.message);
          log.warn({ ...ctx, err }, 'mail refused by the SMTP server; not retrying');
          return 'refused';
        }
        await outbox.release(input.eventId, err instanceof Error ? err.message : String(err), now());
        throw err;
      }
    },
  };
}
export type Delivery = ReturnType<typeof delivery>;
