/**
 * Error codes and their documentation agree both ways: every code a client can receive has a row in its error
 * table (`docs/errors.md` for the core, the plugin's README for a plugin), and every row of those tables names a
 * code its catalogue still declares, so a removed or renamed code cannot linger in the docs.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PLUGINS } from '../app/builtin-plugins.ts';
import { coreErrors } from '../gateway/src/errors/core-errors.ts';

const CORE_HEADING = 'Core error codes';
const PLUGIN_HEADING = 'Error codes';

/** A heading line: its level and its text. */
const HEADING = /^(#{1,6}) (.*)$/;
/** A table's delimiter row, e.g. `| ---- | :----: |`. */
const DELIMITER = /^\s*\|(?:\s*:?-+:?\s*\|)+\s*$/;
/** The first cell of a table row. */
const FIRST_CELL = /^\s*\|([^|]*)\|/;
/** A code as the catalogues spell them, in backticks. Each repetition starts with a dot, so matching is linear. */
const CODE_CELL = /^`([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*)`$/;
const FENCE = /^\s*(```|~~~)/;

/** The lines of the section under the heading `title`, up to the next heading of the same or a higher level. */
function section(markdown: string, title: string): { lines: string[]; firstLine: number } {
  const lines = markdown.split('\n');
  let inFence = false;
  let start = -1;
  let level = 0;
  for (const [index, line] of lines.entries()) {
    if (FENCE.test(line)) inFence = !inFence;
    const heading = inFence ? null : HEADING.exec(line);
    if (!heading) continue;
    const depth = heading[1]?.length ?? 0;
    if (start >= 0 && depth <= level) return { lines: lines.slice(start, index), firstLine: start + 1 };
    if (start < 0 && heading[2]?.trim() === title) [start, level] = [index + 1, depth];
  }
  if (start < 0) throw new Error(`no "${title}" heading`);
  return { lines: lines.slice(start), firstLine: start + 1 };
}

/**
 * The codes in the first column of every table under the heading `title`. A body row whose first cell is not one
 * backticked code is an error, not a row to skip, so a table written differently cannot pass unread.
 */
function documentedCodes(markdown: string, title: string): string[] {
  const { lines, firstLine } = section(markdown, title);
  const codes: string[] = [];
  let inFence = false;
  for (const [index, line] of lines.entries()) {
    if (FENCE.test(line)) inFence = !inFence;
    const cell = inFence ? undefined : FIRST_CELL.exec(line)?.[1]?.trim();
    const isHeaderRow = DELIMITER.test(lines[index + 1] ?? '');
    if (cell === undefined || isHeaderRow || DELIMITER.test(line)) continue;
    const code = CODE_CELL.exec(cell)?.[1];
    if (code === undefined)
      throw new Error(`line ${firstLine + index}: "${cell}" is not a backticked error code`);
    codes.push(code);
  }
  return codes;
}

/** How a document's error table and a catalogue differ: codes without a row, and rows without a code. */
function compare(markdown: string, title: string, catalogue: Iterable<string>) {
  const documented = documentedCodes(markdown, title);
  const declared = new Set(catalogue);
  return {
    undocumented: [...declared].filter((code) => !documented.includes(code)),
    stale: documented.filter((code) => !declared.has(code)),
  };
}

async function readDoc(relative: string): Promise<string> {
  return readFile(new URL(`../${relative}`, import.meta.url), 'utf8');
}

const PLUGINS = BUILTIN_PLUGINS.map((plugin) => [plugin.id, plugin] as const);

describe('error catalogues', () => {
  it('every core code is in docs/errors.md', async () => {
    const doc = await readDoc('docs/errors.md');
    expect(compare(doc, CORE_HEADING, Object.keys(coreErrors.specs)).undocumented).toEqual([]);
  });

  it.each(PLUGINS)('every %s code is in its README', async (id, plugin) => {
    const doc = await readDoc(`plugins/${id}/README.md`);
    expect(compare(doc, PLUGIN_HEADING, Object.keys(plugin.errors.specs)).undocumented).toEqual([]);
  });

  it('every code in the table of docs/errors.md is in the core catalogue', async () => {
    const doc = await readDoc('docs/errors.md');
    expect(compare(doc, CORE_HEADING, Object.keys(coreErrors.specs)).stale).toEqual([]);
  });

  it.each(PLUGINS)("every code in the %s README's table is in the plugin's catalogue", async (id, plugin) => {
    const doc = await readDoc(`plugins/${id}/README.md`);
    expect(compare(doc, PLUGIN_HEADING, Object.keys(plugin.errors.specs)).stale).toEqual([]);
  });
});

describe('the error-table reader', () => {
  const readme = [
    '# Plugin `demo`',
    '',
    '## Error codes',
    '',
    '| code             | status | meaning              |',
    '| ---------------- | -----: | -------------------- |',
    '| `demo.kept`      | 400    | Still declared.      |',
    '| `demo.removed`   | 404    | A row left behind.   |',
    '',
    '```sh',
    '# a shell comment is not a heading',
    '| nor is this a row |',
    '```',
    '',
    '| code            | status |',
    '| --------------- | ------ |',
    '| `demo.later`    | 409    |',
    '',
    '## Commands',
    '',
    '| command | meaning |',
    '| ------- | ------- |',
    '| `demo run` | Not an error code. |',
  ].join('\n');

  it('finds a stale row: a documented code that the catalogue no longer declares', () => {
    expect(compare(readme, PLUGIN_HEADING, ['demo.kept', 'demo.later'])).toEqual({
      undocumented: [],
      stale: ['demo.removed'],
    });
  });

  it('finds an undocumented code, reading every table of the section and nothing past it', () => {
    expect(compare(readme, PLUGIN_HEADING, ['demo.kept', 'demo.removed', 'demo.later', 'demo.new'])).toEqual({
      undocumented: ['demo.new'],
      stale: [],
    });
  });

  it('refuses a row it cannot read and a missing section, rather than passing them', () => {
    const unreadable = readme.replace('| `demo.kept`      |', '| demo.kept |');
    expect(() => documentedCodes(unreadable, PLUGIN_HEADING)).toThrow(
      'line 7: "demo.kept" is not a backticked',
    );
    expect(() => documentedCodes(readme, 'Errors')).toThrow('no "Errors" heading');
  });

  it('reads an empty table as no codes', () => {
    expect(
      documentedCodes('## Error codes\n\n| code | status |\n| ---- | ------ |\n', PLUGIN_HEADING),
    ).toEqual([]);
  });
});
