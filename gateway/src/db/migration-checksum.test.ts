import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checksum, statementsOf, wholeFileChecksum } from './migration-checksum.ts';

const lines = (...text: string[]) => text.join('\n');

describe('checksum', () => {
  it('leaves out comment lines and blank lines, indented or not', () => {
    const reworded = lines(
      '-- Accounts (explained at length).',
      '',
      'CREATE TABLE a (',
      '  id int,',
      '    -- why the next column exists',
      '',
      '  name text',
      ');',
      '\t-- a last word',
      '',
    );
    expect(checksum(reworded)).toBe(checksum(lines('CREATE TABLE a (', '  id int,', '  name text', ');')));
    expect(statementsOf(reworded)).toBe(lines('CREATE TABLE a (', '  id int,', '  name text', ');'));
  });

  it('sees every change to a statement, its indentation included', () => {
    const base = checksum(lines('CREATE TABLE a (', '  id int', ');'));
    expect(checksum(lines('CREATE TABLE a (', '  id bigint', ');'))).not.toBe(base);
    expect(checksum(lines('CREATE TABLE a (', '    id int', ');'))).not.toBe(base);
    expect(checksum(lines('CREATE TABLE a (', '  id int', ');', 'DROP TABLE a;'))).not.toBe(base);
  });

  it('counts a comment after code on the same line', () => {
    expect(checksum('SELECT 1; -- one')).not.toBe(checksum('SELECT 1; -- two'));
    expect(checksum('SELECT 1; /* one */')).not.toBe(checksum('SELECT 1; /* two */'));
  });

  it('counts the lines of a string literal that spans lines, even blank or starting with --', () => {
    const literal = (...body: string[]) =>
      checksum(lines("INSERT INTO t VALUES ('first", ...body, "last');"));
    expect(literal('-- one')).not.toBe(literal('-- two'));
    expect(literal('')).not.toBe(literal());
    // A doubled quote does not end the literal.
    expect(checksum(lines("SELECT 'it''s", '-- one', "';"))).not.toBe(
      checksum(lines("SELECT 'it''s", '-- two', "';")),
    );
  });

  it("reads backslashes as escapes only in E'...' strings", () => {
    // E'it\'s: the quote is escaped, so the next lines are still inside the string.
    expect(checksum(lines("SELECT E'it\\'s", '-- one', "';"))).not.toBe(
      checksum(lines("SELECT E'it\\'s", '-- two', "';")),
    );
    // 'C:\' ends at its second quote (standard conforming strings): the next line is a comment.
    expect(checksum(lines("SELECT 'C:\\';", '-- one'))).toBe(checksum(lines("SELECT 'C:\\';", '-- two')));
    // TYPE'...': the E ends a word, it is not a prefix.
    expect(checksum(lines("SELECT DATE'2020-01-01\\';", '-- one'))).toBe(
      checksum(lines("SELECT DATE'2020-01-01\\';", '-- two')),
    );
  });

  it('counts the lines of a dollar-quoted body, comments and blank lines included', () => {
    const body = (...inner: string[]) =>
      checksum(lines('CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$', ...inner, 'END $body$;'));
    expect(body('BEGIN', '  -- one', '  RETURN 1;')).not.toBe(body('BEGIN', '  -- two', '  RETURN 1;'));
    expect(body('BEGIN', '', '  RETURN 1;')).not.toBe(body('BEGIN', '  RETURN 1;'));
    // Another tag inside the body does not end it; its own tag does, and comments after it are left out.
    expect(body('BEGIN', '  RETURN $$ ends $$::int;', '  -- one')).not.toBe(
      body('BEGIN', '  RETURN $$ ends $$::int;', '  -- two'),
    );
    expect(checksum(lines('SELECT $$a$$;', '-- one'))).toBe(checksum(lines('SELECT $$a$$;', '-- two')));
  });

  it('does not take a parameter or a $ inside a name for a dollar quote', () => {
    expect(checksum(lines('PREPARE p AS SELECT $1;', '-- one'))).toBe(checksum('PREPARE p AS SELECT $1;'));
    expect(checksum(lines('SELECT a$b$c FROM t;', '-- one'))).toBe(checksum('SELECT a$b$c FROM t;'));
  });

  it('counts the lines of a quoted identifier and of a block comment, which nest', () => {
    expect(checksum(lines('CREATE TABLE "a', '-- one";'))).not.toBe(
      checksum(lines('CREATE TABLE "a', '-- two";')),
    );
    const block = (inner: string) =>
      checksum(lines('/* outer', '/* inner */', inner, '*/', 'SELECT 1;', '-- after'));
    expect(block('-- one')).not.toBe(block('-- two'));
    expect(checksum(lines('/* a */ SELECT 1;', '-- one'))).toBe(
      checksum(lines('/* a */ SELECT 1;', '-- two')),
    );
  });

  it('does not see a line-ending change as an edit', () => {
    expect(checksum('SELECT 1;\r\nSELECT 2;\r\n')).toBe(checksum('SELECT 1;\nSELECT 2;\n'));
    expect(checksum('-- a\r\n\r\nSELECT 1;\r\n')).toBe(checksum('SELECT 1;'));
  });

  it('stays linear on long hostile input', () => {
    const hostile = [
      '$a'.repeat(100_000),
      "E'\\".repeat(100_000),
      '/*'.repeat(100_000),
      `${'-'.repeat(100_000)}\n`.repeat(10),
      `$${'t'.repeat(100_000)}`,
    ];
    const start = performance.now();
    for (const text of hostile) checksum(text);
    expect(performance.now() - start).toBeLessThan(2_000);
  });
});

describe('wholeFileChecksum', () => {
  it('is the SHA-256 of the whole file, comments included, line endings normalised', () => {
    const file = '-- a comment\n\nSELECT 1;\n';
    expect(wholeFileChecksum(file)).toBe(createHash('sha256').update(file).digest('hex'));
    expect(wholeFileChecksum(file.replaceAll('\n', '\r\n'))).toBe(wholeFileChecksum(file));
    expect(wholeFileChecksum(file)).not.toBe(wholeFileChecksum('-- another comment\n\nSELECT 1;\n'));
  });
});
