import type { Types } from 'mongoose';

/** A lean document: mongoose's inferred types add nothing at this boundary. */
export type Lean = { _id: Types.ObjectId } & Record<string, unknown>;
