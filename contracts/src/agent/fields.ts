// Field rules shared by the agent protocol's messages.
import { z } from 'zod';
import { objectId } from '../ids.js';
import { clipErrorText, DATABASE_LABEL_PATTERN, LIMITS } from '../limits.js';
import { reportedText } from '../text.js';

export const jobId = objectId();

/** A database as the agent names it (its label). */
export const databaseLabel = z.string().regex(DATABASE_LABEL_PATTERN, 'must be a database label');

export const databaseLabels = z.array(databaseLabel).max(LIMITS.databasesPerAgent);

/**
 * The agent's version, as it reports it (control and text-direction characters stripped). No
 * whitespace: versions end up in message ids, which travel as NATS headers. The same rule at the
 * handshake and in the update report, so an agent is refused where it connects, not later.
 */
export const version = reportedText(z.string().max(LIMITS.version)).pipe(
  z.string().regex(/^\S*$/, 'Version must not contain whitespace'),
);

/**
 * Why a job failed. Clipped, not refused, when long: agents older than this contract sent up to
 * 4000 characters, and a refused report would lose the reason altogether.
 */
export const errorText = z.string().transform((text) => clipErrorText(text));
