import type { Types } from 'mongoose';

/** A lean document with its ObjectId turned into the string id the domain uses. */
export function withId<T>(doc: { _id: Types.ObjectId } & Record<string, unknown>): T {
  const { _id, ...rest } = doc;
  return { ...rest, id: _id.toHexString() } as T;
}

/** Lean documents as loose records: mongoose's inferred types add nothing at this boundary. */
export type Lean = { _id: Types.ObjectId } & Record<string, unknown>;
