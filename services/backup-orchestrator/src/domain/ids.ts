import { Types } from 'mongoose';

/** A new 24-hex id (backup and restore ids are ObjectIds; the agent sees them as strings). */
export const newId = () => new Types.ObjectId().toHexString();
