// Verified backups (issue 20): what a backup's dump looked like per collection, recorded by the
// agent while the backup streamed through it and compared, after a restore into a scratch
// database, with what came back. It describes structure and counts, never contents: collection
// names (recorded already), document counts, index definitions and a digest of the documents.
import { z } from 'zod';
import { LIMITS } from '../limits.js';

export const VERIFICATION_LIMITS = {
  /** Collections one summary may describe (a dump of more is summarised as unverifiable). */
  collections: 1000,
  /** Indexes per collection (MongoDB allows 64). */
  indexes: 64,
  /** One index definition as canonical JSON. */
  indexDefinition: 4000,
} as const;

/** A digest: 64 hex digits (sum mod 2^256 of the documents' SHA-256, agent/src/pipeline/digest.ts). */
export const DIGEST_PATTERN = /^[0-9a-f]{64}$/;

export const collectionSummarySchema = z.object({
  name: z.string().min(1).max(LIMITS.collectionName),
  documents: z.number().int().nonnegative(),
  digest: z.string().regex(DIGEST_PATTERN, 'must be 64 hex digits'),
  /** Canonical JSON of each index definition, sorted by name. */
  indexes: z.array(z.string().max(VERIFICATION_LIMITS.indexDefinition)).max(VERIFICATION_LIMITS.indexes),
});
export type CollectionSummary = z.infer<typeof collectionSummarySchema>;

export const backupSummarySchema = z.array(collectionSummarySchema).max(VERIFICATION_LIMITS.collections);
export type BackupSummary = CollectionSummary[];

/** Per database, set in Settings → Databases. */
export const VERIFY_MODES = ['off', 'each', 'weekly'] as const;
export type VerifyMode = (typeof VERIFY_MODES)[number];
/** Each mode in product words: the Settings choice and the audit log's VERIFICATION_UPDATED say the same. */
export const VERIFY_MODE_LABELS: Record<VerifyMode, string> = {
  off: 'Off',
  each: 'Verify each backup',
  weekly: 'Verify weekly',
};

/** The first difference a verification found: which collection, what, expected vs found. */
export const verificationDifferenceSchema = z.object({
  collection: z.string().max(LIMITS.collectionName),
  what: z.enum(['collection', 'documents', 'indexes', 'digest']),
  expected: z.string().max(VERIFICATION_LIMITS.indexDefinition),
  found: z.string().max(VERIFICATION_LIMITS.indexDefinition),
});
export type VerificationDifference = z.infer<typeof verificationDifferenceSchema>;

/** What a verification that ran to its end checked. */
export const verificationCheckedSchema = z.object({
  collections: z.number().int().nonnegative(),
  documents: z.number().int().nonnegative(),
  indexes: z.number().int().nonnegative(),
});
export type VerificationChecked = z.infer<typeof verificationCheckedSchema>;

/** The difference in product words ("orders: 120 documents expected, 119 found"). */
export function describeDifference(d: VerificationDifference): string {
  switch (d.what) {
    case 'collection':
      return `collection ${d.collection}: expected ${d.expected}, found ${d.found}`;
    case 'documents':
      return `${d.collection}: ${d.expected} documents expected, ${d.found} found`;
    case 'indexes':
      return `${d.collection}: index ${d.expected} expected, found ${d.found}`;
    case 'digest':
      return `${d.collection}: the documents' content digest differs (expected ${d.expected.slice(0, 12)}…, found ${d.found.slice(0, 12)}…)`;
  }
}
