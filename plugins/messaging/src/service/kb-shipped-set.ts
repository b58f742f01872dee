import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { KbLanguage } from '../domain/kb-evaluation-metrics.ts';

/** The shipped knowledge base and its evaluation set (README, "Knowledge base", "Evaluation", "The shipped set"). */
export const SHIPPED_KB_DIR = fileURLToPath(new URL('../../data/kb/', import.meta.url));

export interface ShippedDocument {
  /** The file name without `.md`: how the evaluation set names the document. */
  slug: string;
  language: KbLanguage;
  title: string;
  /** The whole Markdown file, first heading included. */
  body: string;
}

export interface ShippedItem {
  question: string;
  lang: KbLanguage;
  expected: string[];
  heldOut: boolean;
}

const itemLine = z.strictObject({
  question: z.string().min(1).max(1000),
  lang: z.enum(['id', 'en']),
  expected: z.array(z.string().min(1)).min(1).max(10),
  heldOut: z.boolean(),
});

const HEADING = /^# (.+)$/m;

/** The shipped documents: `data/kb/<language>/<slug>.md`, titled by their first heading. */
export function loadShippedDocuments(dir: string = SHIPPED_KB_DIR): ShippedDocument[] {
  return (['id', 'en'] as const).flatMap((language) =>
    readdirSync(join(dir, language))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => {
        const body = readFileSync(join(dir, language, name), 'utf8');
        const title = HEADING.exec(body)?.[1]?.trim();
        if (!title) throw new Error(`${language}/${name}: no "# title" heading`);
        return { slug: name.slice(0, -'.md'.length), language, title, body };
      }),
  );
}

/**
 * The shipped evaluation set, one JSON object per line; every expected slug must be a shipped document of the
 * item's language (a typo would silently count as a miss).
 */
export function loadShippedEvaluationSet(
  documents: readonly ShippedDocument[],
  dir: string = SHIPPED_KB_DIR,
): ShippedItem[] {
  const path = join(dir, 'evaluation-set.v1.jsonl');
  const languageOf = new Map(documents.map((d) => [d.slug, d.language]));
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line, index) => {
      if (line.trim() === '') return [];
      const parsed = itemLine.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${path}:${index + 1}: ${parsed.error.issues[0]?.message}`);
      for (const slug of parsed.data.expected)
        if (languageOf.get(slug) !== parsed.data.lang)
          throw new Error(`${path}:${index + 1}: no ${parsed.data.lang} document "${slug}"`);
      return [parsed.data];
    });
}
