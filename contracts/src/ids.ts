// Every Coffer object id (users, agents, backups, restores, …) is a MongoDB ObjectId and travels
// as 24 hex digits. One rule for the gateway, the services, the agent and the web app.
import { z } from 'zod';

export const OBJECT_ID_PATTERN = /^[0-9a-f]{24}$/i;

/** True for a string of 24 hex digits. */
export const isObjectId = (value: unknown): value is string =>
  typeof value === 'string' && OBJECT_ID_PATTERN.test(value);

/** A zod rule for an id field; `message` is what a refusal says (e.g. 'Invalid backup id'). */
export const objectId = (message = 'must be a 24-hex id') =>
  z.string({ error: message }).regex(OBJECT_ID_PATTERN, message);
