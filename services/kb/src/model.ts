import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
import type { ServiceDatabase } from '@coffer/common';
import { KB_CATEGORIES } from '@coffer/contracts';

const authorSchema = new Schema(
  { id: { type: String, required: true }, name: { type: String, default: '' } },
  { _id: false },
);

const articleSchema = new Schema(
  {
    title: { type: String, required: true },
    slug: { type: String, required: true, unique: true },
    /** Markdown, exactly as the admin wrote it. */
    content: { type: String, required: true },
    category: { type: String, enum: KB_CATEGORIES, required: true },
    tags: { type: [String], default: [] },
    isPublished: { type: Boolean, required: true },
    order: { type: Number, default: 0 },
    author: { type: authorSchema, default: null },
    /** The start of the text without markdown, so lists never load the whole article. */
    excerpt: { type: String, default: '' },
    /**
     * The search field (FerretDB has no text index): the distinct normalised words of title, content
     * and tags. A search word matches when it starts one of them (domain/search.ts).
     */
    searchTokens: { type: [String], default: [] },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'articles', versionKey: false },
);
articleSchema.index({ isPublished: 1, order: 1, updatedAt: -1 });
articleSchema.index({ tags: 1 });
articleSchema.index({ searchTokens: 1 });

/** One document, `_id: 'seed'`, once the first start wrote the seeded articles. */
const kbMetaSchema = new Schema(
  { _id: { type: String, required: true }, at: { type: Date, required: true } },
  { collection: 'kb_meta', versionKey: false },
);

export interface KbModels {
  Article: Model<InferSchemaType<typeof articleSchema>>;
  KbMeta: Model<InferSchemaType<typeof kbMetaSchema>>;
}

export function kbModels(conn: Connection): KbModels {
  return { Article: conn.model('Article', articleSchema), KbMeta: conn.model('KbMeta', kbMetaSchema) };
}

/** What the migrate step builds and applies (docs/operations.md, "Upgrades"): indexes only, so far. */
export const kbDatabase: ServiceDatabase<KbModels> = { models: kbModels };
