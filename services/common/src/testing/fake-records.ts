// What the services' in-memory stores (store/fake.ts) share to behave like their mongoose ones.

/** Records are copied in and out of a fake store, as a database would. */
export const copyRecord = <T>(v: T): T => structuredClone(v);

let seq = 0;
/** A fresh 24-hex id, increasing like ObjectIds, so ties in creation time break in insertion order. */
export const nextHexId = () => (++seq).toString(16).padStart(24, '0');

/** The error MongoDB gives for a unique-index violation (isDuplicateKeyError recognises it). */
export const duplicateKeyError = () =>
  Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
