import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Language, Reply } from '../types.ts';
import { CONVERSATION_TEMPLATES } from './templates.ts';

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

const TemplateSchema = z.strictObject({
  /** Indonesian; optional, the English text is the fallback. */
  id: z.string().min(1).optional(),
  en: z.string().min(1),
});

const CatalogueFileSchema = z.strictObject({
  version: z.literal(1),
  description: z.string().optional(),
  templates: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,59}$/), TemplateSchema),
});

/** Reply texts by template id, in Indonesian (`id`) and English (`en`). */
export type ReplyCatalogue = Readonly<Record<string, Readonly<z.output<typeof TemplateSchema>>>>;

/**
 * Validates a reply catalogue: the file's shape, every template in `required` present (by default every
 * template the conversation engine can emit), and every `{param}` in a required template's texts one that
 * the engine passes. Other templates may exist (for other senders); their parameters are not checked.
 * Throws an Error naming each problem, so a bad file stops the gateway at boot.
 */
export function parseReplyCatalogue(
  raw: unknown,
  required: Readonly<Record<string, readonly string[]>> = CONVERSATION_TEMPLATES,
  source = 'reply catalogue',
): ReplyCatalogue {
  const parsed = CatalogueFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `${source}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const problems: string[] = [];
  for (const [template, params] of Object.entries(required)) {
    const texts = parsed.data.templates[template];
    if (!texts) {
      problems.push(`templates.${template}: missing`);
      continue;
    }
    for (const language of ['id', 'en'] as const) {
      for (const [, param] of (texts[language] ?? '').matchAll(PLACEHOLDER)) {
        if (!params.includes(param ?? '')) {
          problems.push(`templates.${template}.${language}: unknown parameter {${param}}`);
        }
      }
    }
  }
  if (problems.length > 0) throw new Error(`${source}: ${problems.join('; ')}`);
  return parsed.data.templates;
}

/** Reads and validates plugins/messaging/data/replies.v1.json (or another file). */
export function readReplyCatalogue(
  file: URL = new URL('../../../data/replies.v1.json', import.meta.url),
): ReplyCatalogue {
  return parseReplyCatalogue(JSON.parse(readFileSync(file, 'utf8')), CONVERSATION_TEMPLATES, String(file));
}

/**
 * The text of a reply in a language: the template's Indonesian or English text, English when the
 * Indonesian one is missing, with `{param}` replaced by the reply's parameters (a missing parameter
 * becomes empty). Throws on an unknown template: the engine only emits templates the loader checked.
 */
export function renderReply(catalogue: ReplyCatalogue, reply: Reply, language: Language): string {
  const texts = catalogue[reply.template];
  if (!texts) throw new Error(`reply template "${reply.template}" is not in the catalogue`);
  const text = (language === 'id' ? texts.id : undefined) ?? texts.en;
  return text.replace(PLACEHOLDER, (_match, param: string) => reply.params[param] ?? '');
}
