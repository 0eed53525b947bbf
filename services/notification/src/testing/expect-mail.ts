import type { fakeMailer } from '../store.fake.js';

/**
 * Checks that the mailer sent exactly one mail, to `to` with `subject`, whose text has each of
 * `text` in it.
 */
export function expectOneMail(
  mailer: ReturnType<typeof fakeMailer>,
  mail: { to: string; subject: string; text?: string[] },
): void {
  expect(mailer.sent).toHaveLength(1);
  expect(mailer.sent[0]).toMatchObject({ to: mail.to, subject: mail.subject });
  for (const phrase of mail.text ?? []) expect(mailer.sent[0]!.text).toContain(phrase);
}
