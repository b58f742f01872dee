/**
 * A customer's question as retrieval searches it (README, "Knowledge base", "Retrieval"): its words (letters
 * and digits only, lower-cased, so they can never be text-search syntax), without Indonesian stop words (the
 * `english` configuration drops English ones itself; the Indonesian one keeps every word), without repeats,
 * at most KB_QUERY_MAX_TERMS of them.
 */

export const KB_QUERY_MAX_TERMS = 16;
/** A query of at most this many words is short: a misspelt word of it is corrected to the nearest known words. */
export const KB_SHORT_QUERY_TERMS = 3;
const TERM_MAX_CHARS = 40;

/** Common Indonesian function words: they match nearly every Indonesian chunk and say nothing. */
const INDONESIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'ada adalah agar akan aku anda apa apakah atau bagaimana bagi bahwa bapak beberapa begitu belum berapa ' +
    'bisa boleh bu dalam dan dari dengan di dia ini itu ibu jadi jika juga kah kalau kami kamu kan kapan ' +
    'karena ke kenapa ketika kita lagi lah mana mau maupun mereka mohon nya oleh pada para per pun saja ' +
    'sama saya sebagai sedang seperti siapa sudah supaya tahu tanya tapi telah tentang tersebut tidak ' +
    'tolong untuk yang ya gimana gak nggak dong deh sih kak min halo hai'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;

/** The query's search terms; empty when it has none. */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  for (const [word] of query.slice(0, 1000).toLowerCase().matchAll(WORD)) {
    const term = word.slice(0, TERM_MAX_CHARS);
    if (INDONESIAN_STOP_WORDS.has(term) || terms.includes(term)) continue;
    terms.push(term);
    if (terms.length >= KB_QUERY_MAX_TERMS) break;
  }
  return terms;
}
