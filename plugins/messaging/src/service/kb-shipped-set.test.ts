import { describe, expect, it } from 'vitest';
import { loadShippedDocuments, loadShippedEvaluationSet } from './kb-shipped-set.ts';

describe('the shipped knowledge base and evaluation set', () => {
  const documents = loadShippedDocuments();
  const items = loadShippedEvaluationSet(documents);

  it('holds documents in both languages, each titled', () => {
    expect(documents.length).toBeGreaterThanOrEqual(20);
    expect(documents.filter((d) => d.language === 'id').length).toBeGreaterThanOrEqual(10);
    expect(documents.filter((d) => d.language === 'en').length).toBeGreaterThanOrEqual(10);
    expect(new Set(documents.map((d) => d.slug)).size).toBe(documents.length);
  });

  it('has a held-out part in both languages, and every document is expected by some item', () => {
    const heldOut = items.filter((i) => i.heldOut);
    expect(heldOut.length).toBeGreaterThanOrEqual(20);
    expect(new Set(heldOut.map((i) => i.lang))).toEqual(new Set(['id', 'en']));
    const expected = new Set(items.flatMap((i) => i.expected));
    expect(documents.filter((d) => !expected.has(d.slug)).map((d) => d.slug)).toEqual([]);
  });
});
