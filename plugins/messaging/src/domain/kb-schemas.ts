import { z } from 'zod';
import { isCleanIdentifier, storableText } from '../../../../gateway/src/plugin-api.ts';
import { pageLimit } from './page-limit.ts';

/**
 * The knowledge-base routes' shapes (README, "Knowledge base"). The same schemas validate requests and
 * describe the routes in the staff API document (openapi/kb-paths.ts).
 */

export const KB_LANGUAGES = ['id', 'en'] as const;
export const KB_SOURCES = ['manual', 'faq', 'import'] as const;
export const KB_STATUSES = ['draft', 'published', 'archived'] as const;
export type KbLanguage = (typeof KB_LANGUAGES)[number];
export type KbSource = (typeof KB_SOURCES)[number];
export type KbStatus = (typeof KB_STATUSES)[number];

export const KB_TITLE_MAX = 200;
export const KB_BODY_MAX = 100_000;
export const KB_TAGS_MAX = 20;
/** Items in one import request. */
export const KB_IMPORT_ITEMS_MAX = 50;

/** Text of 1 to `max` characters, not blank, stored as it can be (the KB's and its evaluation's text fields). */
export const nonBlank = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/\S/, { error: 'must not be blank' })
    // NUL and unpaired surrogates cannot be stored as text: they become U+FFFD.
    .transform(storableText);

const TitleSchema = nonBlank(KB_TITLE_MAX).meta({ description: 'The title, 1 to 200 characters.' });
const BodySchema = nonBlank(KB_BODY_MAX).meta({
  description: 'The body as Markdown, up to 100,000 characters.',
});
export const LanguageSchema = z
  .enum(KB_LANGUAGES)
  .meta({ id: 'KbLanguage', description: 'Indonesian or English.' });
const TagSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, {
  error: 'must be 1-40 of a-z, 0-9, _ and -, starting with a letter or digit',
});
const TagsSchema = z
  .array(TagSchema)
  .max(KB_TAGS_MAX)
  .transform((tags) => [...new Set(tags)])
  .meta({ description: 'Up to 20 tags (lower case).' });
const StatusSchema = z.enum(KB_STATUSES).meta({
  id: 'KbStatus',
  description: '`draft`: not answered from; `published`: searched by the bot; `archived`: deleted (kept).',
});
/** The statuses a write may set: archiving is the DELETE route's. */
const WritableStatusSchema = z.enum(['draft', 'published']);
const SourceSchema = z.enum(KB_SOURCES).meta({
  id: 'KbSource',
  description: 'Where the document came from: written here, the FAQ synchronisation, or a file import.',
});

export const KbDocumentIdParamsSchema = z.strictObject({
  id: z.uuid({ error: 'must be a document id' }).meta({ description: 'The document id.' }),
});

export const KbDocumentCreateSchema = z
  .strictObject({
    title: TitleSchema,
    body: BodySchema,
    language: LanguageSchema,
    tags: TagsSchema.default([]),
    source: z.enum(['manual', 'faq']).default('manual').meta({ description: '`manual` (default) or `faq`.' }),
    status: WritableStatusSchema.default('draft').meta({ description: '`draft` (default) or `published`.' }),
  })
  .meta({ id: 'KbDocumentInput', description: 'A new document.' });
export type KbDocumentCreate = z.output<typeof KbDocumentCreateSchema>;

export const KbDocumentChangesSchema = z
  .strictObject({
    title: TitleSchema.optional(),
    body: BodySchema.optional(),
    language: LanguageSchema.optional(),
    tags: TagsSchema.optional(),
    status: WritableStatusSchema.optional().meta({
      description: '`published` publishes, `draft` unpublishes (delete to archive).',
    }),
  })
  .refine((body) => Object.keys(body).length > 0, { error: 'give at least one field to change' })
  .meta({ id: 'KbDocumentChanges', description: 'The fields to change; the others stay.' });
export type KbDocumentChanges = z.output<typeof KbDocumentChangesSchema>;

export const KbDocumentListQuerySchema = z.strictObject({
  limit: pageLimit,
  cursor: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .meta({ description: "The previous page's `nextCursor`, unchanged." }),
  status: StatusSchema.optional(),
  language: LanguageSchema.optional(),
  tag: TagSchema.optional().meta({ description: 'Only documents with this tag.' }),
  source: SourceSchema.optional(),
});
export type KbDocumentListQuery = z.output<typeof KbDocumentListQuerySchema>;

/** A list cursor's position: updated_at in microseconds since the epoch, then the id. */
export const KbDocumentPositionSchema = z.tuple([z.number().int().nonnegative(), z.uuid()]);

export const KbImportSchema = z
  .strictObject({
    items: z
      .array(
        z.strictObject({
          filename: z
            .string()
            .min(1)
            .max(200)
            .regex(/^[^\\/]+$/, { error: 'must be a file name without a path' })
            .refine(isCleanIdentifier, { error: 'must not contain control characters' })
            .meta({ description: 'The file name: the title when the content has no heading.' }),
          content: z.string().max(KB_BODY_MAX).meta({ description: 'Markdown or plain text.' }),
          language: LanguageSchema,
        }),
      )
      .min(1)
      .max(KB_IMPORT_ITEMS_MAX),
    status: WritableStatusSchema.default('draft').meta({
      description: 'The status the imported documents get (default `draft`).',
    }),
  })
  .meta({ id: 'KbImportInput', description: 'Files to import, one document each.' });
export type KbImport = z.output<typeof KbImportSchema>;

export const KbDocumentSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    body: z.string(),
    language: LanguageSchema,
    tags: z.array(z.string()),
    source: SourceSchema,
    status: StatusSchema,
    version: z.int().meta({ description: 'One more on every edit; the ETag names it.' }),
    createdBy: z.string(),
    updatedBy: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    publishedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'KbDocument' });
export type KbDocumentView = z.output<typeof KbDocumentSchema>;

export const KbDocumentVersionSchema = z
  .object({
    version: z.int(),
    title: z.string(),
    body: z.string(),
    language: LanguageSchema,
    tags: z.array(z.string()),
    status: StatusSchema,
    savedBy: z.string(),
    savedAt: z.iso.datetime(),
  })
  .meta({ id: 'KbDocumentVersion', description: 'A document as it was before an edit replaced it.' });
export type KbDocumentVersionView = z.output<typeof KbDocumentVersionSchema>;

export const KbDocumentPageSchema = z
  .object({ items: z.array(KbDocumentSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'KbDocumentPage' });

export const KbImportItemResultSchema = z.object({
  filename: z.string(),
  documentId: z.uuid().nullable(),
  error: z.string().nullable(),
});

export const KbImportResultSchema = z
  .object({
    id: z.uuid(),
    createdAt: z.iso.datetime(),
    imported: z.int(),
    errors: z.int(),
    items: z.array(KbImportItemResultSchema),
  })
  .meta({ id: 'KbImportResult' });
export type KbImportResult = z.output<typeof KbImportResultSchema>;

export const KbSourcesSchema = z
  .object({
    kbVersion: z.int(),
    sources: z.array(
      z.object({
        source: SourceSchema,
        documents: z.object({ draft: z.int(), published: z.int(), archived: z.int() }),
        lastImportAt: z.iso.datetime().nullable(),
        lastImportErrors: z.array(z.object({ filename: z.string(), error: z.string() })),
      }),
    ),
  })
  .meta({ id: 'KbSources' });
export type KbSourcesView = z.output<typeof KbSourcesSchema>;
