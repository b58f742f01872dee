/**
 * How a published document's Markdown body becomes the chunks retrieval searches (README, "Knowledge base",
 * "Chunking"): the body is cut at its headings, each section's paragraphs are packed into chunks of at most
 * KB_CHUNK_MAX_CHARS characters, and every chunk keeps the heading of its section (the document's title
 * before the first heading) so that a chunk read alone still says what it is about. A paragraph longer than
 * a chunk is cut at a sentence end or a space. Everything here is a single pass over the text.
 */

/** The longest chunk text, in UTF-16 code units. */
export const KB_CHUNK_MAX_CHARS = 800;
/** The most chunks one document gives; the rest of a (very long) body is not searched. */
export const KB_CHUNKS_MAX = 200;

export interface KbChunk {
  heading: string;
  text: string;
}

/** The chunks of a document, in body order. */
export function chunkDocument(title: string, body: string): KbChunk[] {
  const chunks: KbChunk[] = [];
  for (const section of sections(title, body)) {
    for (const text of packParagraphs(section.paragraphs)) {
      if (chunks.length >= KB_CHUNKS_MAX) return chunks;
      chunks.push({ heading: section.heading, text });
    }
  }
  return chunks;
}

interface Section {
  heading: string;
  paragraphs: string[];
}

/** The body's sections: a Markdown heading line (`#` to `######`, then a space) starts one. */
function sections(title: string, body: string): Section[] {
  const result: Section[] = [{ heading: title, paragraphs: [] }];
  let paragraph: string[] = [];
  const flush = () => {
    const text = paragraph.join(' ').trim();
    if (text.length > 0) result.at(-1)?.paragraphs.push(text);
    paragraph = [];
  };
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    const heading = headingText(line);
    if (heading !== null) {
      flush();
      result.push({ heading: heading.length > 0 ? heading : title, paragraphs: [] });
    } else if (line.length === 0) flush();
    else paragraph.push(line);
  }
  flush();
  return result.filter((section) => section.paragraphs.length > 0);
}

/** The text of an ATX heading line, or null when the line is not one. */
function headingText(line: string): string | null {
  let level = 0;
  while (level < line.length && line.charAt(level) === '#') level++;
  if (level === 0 || level > 6) return null;
  if (line.length > level && line.charAt(level) !== ' ') return null;
  let end = line.length;
  while (end > level && (line.charAt(end - 1) === '#' || line.charAt(end - 1) === ' ')) end--;
  return line.slice(level, end).trim().slice(0, 200);
}

/** Paragraphs packed into texts of at most KB_CHUNK_MAX_CHARS, a long paragraph cut into pieces. */
function packParagraphs(paragraphs: readonly string[]): string[] {
  const texts: string[] = [];
  let current = '';
  for (const paragraph of paragraphs.flatMap(pieces)) {
    if (current.length > 0 && current.length + 2 + paragraph.length > KB_CHUNK_MAX_CHARS) {
      texts.push(current);
      current = '';
    }
    current = current.length === 0 ? paragraph : `${current}\n\n${paragraph}`;
  }
  if (current.length > 0) texts.push(current);
  return texts;
}

/** A paragraph in pieces of at most KB_CHUNK_MAX_CHARS, cut after a sentence end, else at a space. */
function pieces(paragraph: string): string[] {
  const result: string[] = [];
  let rest = paragraph;
  while (rest.length > KB_CHUNK_MAX_CHARS) {
    const cut = cutPoint(rest);
    result.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest.length > 0) result.push(rest);
  return result;
}

function cutPoint(text: string): number {
  const window = text.slice(0, KB_CHUNK_MAX_CHARS);
  const sentence = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '));
  if (sentence > KB_CHUNK_MAX_CHARS / 2) return sentence + 1;
  const space = window.lastIndexOf(' ');
  if (space > KB_CHUNK_MAX_CHARS / 2) return space;
  // No space at all: cut anywhere, but never between the halves of a surrogate pair.
  const last = window.charCodeAt(KB_CHUNK_MAX_CHARS - 1);
  return last >= 0xd800 && last <= 0xdbff ? KB_CHUNK_MAX_CHARS - 1 : KB_CHUNK_MAX_CHARS;
}
