// Names and titles other people see (user names, agent names, article titles) are shown in lists,
// mails and logs. Control characters there break or forge lines (NUL, ESC sequences in a
// terminal), and the Unicode bidi embeddings, overrides and isolates reorder what follows them,
// so 'invoice\u202Etxt.exe' reads as 'invoiceexe.txt'. None belongs in a one-line name; text of any
// script, right-to-left ones included, is fine (the bidi algorithm orders it without help).
import { z } from 'zod';

/** C0 controls (tabs and newlines too: names are one line), DEL, C1 controls, U+202A–U+202E, U+2066–U+2069. */
// Control characters are what this pattern is for.
// eslint-disable-next-line no-control-regex
export const UNSAFE_TEXT_PATTERN = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export const UNSAFE_TEXT_RULE = 'must not contain control characters or text-direction overrides';

/** True when `text` holds a character UNSAFE_TEXT_PATTERN refuses. */
export const hasUnsafeText = (text: string): boolean => UNSAFE_TEXT_PATTERN.test(text);

/** Adds the rule to a string schema; the message names the field (`label`). */
export const safeText = (schema: z.ZodString, label: string): z.ZodString =>
  schema.refine((s) => !hasUnsafeText(s), { error: `${label} ${UNSAFE_TEXT_RULE}` });

/** A one-line display text with nothing else required of it. */
export const displayText = (label: string): z.ZodString => safeText(z.string(), label);

const UNSAFE_TEXT_EVERYWHERE = new RegExp(UNSAFE_TEXT_PATTERN.source, 'g');

/** `text` without the characters UNSAFE_TEXT_PATTERN refuses. */
export const stripUnsafeText = (text: string): string => text.replace(UNSAFE_TEXT_EVERYWHERE, '');

/**
 * A one-line text a machine reports about itself (host name, platform, version): stripped of what
 * UNSAFE_TEXT_PATTERN refuses rather than refused, so an odd host cannot keep its agent out, and
 * nothing of it reaches an admin's screen, a mail or a log line.
 */
export const reportedText = (schema: z.ZodString) => schema.transform(stripUnsafeText);
