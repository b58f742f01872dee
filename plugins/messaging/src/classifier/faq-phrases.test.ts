import { describe, expect, it } from 'vitest';
import { createFastClassifier } from './classifier.ts';
import { compileFaqPhrases } from './faq-phrases.ts';
import { createNormaliser } from './normalise.ts';
import { loadIntentData } from './intent-data.ts';

const data = loadIntentData();
const normalise = createNormaliser(data.normalisation);

describe('the FAQ phrase table', () => {
  const table = compileFaqPhrases(
    [
      { id: 'dorm-id', questions: ['Apakah ada asrama?'], answer: 'Ada.', language: 'id' },
      { id: 'dorm-en', questions: ['apakah ada asrama'], answer: 'Yes.', language: 'en' },
      { id: 'dorm-fee', questions: ['berapa biaya asrama?'], answer: 'Rp 1 juta.', language: 'id' },
      { id: 'empty', questions: ['?!'], answer: 'never', language: 'id' },
    ],
    normalise,
  );

  it('matches a variant anywhere in a message, normalised as tier 1 normalises', () => {
    expect(table.match('Halo kak, APAKAH ada asrama??', 'id')?.entryId).toBe('dorm-id');
    expect(table.match('apakah ada asrama', 'en')?.entryId).toBe('dorm-en');
    expect(table.match('kalau berapa biaya asrama ya', 'id')?.answer).toBe('Rp 1 juta.');
  });

  it('matches nothing for other messages, for no text, and ignores variants with no words', () => {
    expect(table.match('ada parkir?', 'id')).toBeNull();
    expect(table.match(null, 'id')).toBeNull();
    expect(table.match('?!', 'id')).toBeNull();
    expect(table.size).toBe(3);
  });

  it('leaves the classifier as it is', () => {
    const fast = createFastClassifier(data);
    expect(fast.classifyFast('berapa biaya kuliah?')).toMatchObject({ intent: 'askFees', tier: 1 });
  });
});
