import { describe, expect, it } from 'vitest';
import type { LegacyChecksum } from './legacy-checksums.ts';
import { checksum, wholeFileChecksum } from './migration-checksum.ts';
import { plan, type MigrationFile } from './migrate.ts';

const file = (scope: string, name: string, sql = `-- ${name}`): MigrationFile => ({
  scope,
  name,
  sql,
  checksum: checksum(sql),
});

describe('plan', () => {
  it('returns the files not yet applied, in order', () => {
    const files = [file('core', '0001_a.sql'), file('core', '0002_b.sql'), file('kyc', '0001_c.sql')];
    const applied = new Map([['core/0001_a.sql', checksum('-- 0001_a.sql')]]);
    expect(plan(files, applied).pending.map((f) => `${f.scope}/${f.name}`)).toEqual([
      'core/0002_b.sql',
      'kyc/0001_c.sql',
    ]);
  });

  it('refuses an applied file whose content changed', () => {
    const files = [file('core', '0001_a.sql', 'CREATE TABLE a (id int);')];
    const applied = new Map([['core/0001_a.sql', checksum('CREATE TABLE a (id bigint);')]]);
    expect(() => plan(files, applied)).toThrow(/migration core\/0001_a.sql was changed after it was applied/);
  });

  it('refuses a new file that sorts before an applied one in its scope', () => {
    const files = [file('core', '0001_a.sql'), file('core', '0002_b.sql')];
    const applied = new Map([['core/0002_b.sql', checksum('-- 0002_b.sql')]]);
    expect(() => plan(files, applied)).toThrow(
      'migration core/0001_a.sql is new but sorts before the applied core/0002_b.sql',
    );
  });

  it('does not see a line-ending change as an edit', () => {
    expect(checksum('SELECT 1;\r\nSELECT 2;\r\n')).toBe(checksum('SELECT 1;\nSELECT 2;\n'));
  });

  it('accepts an applied file whose comments changed, and has nothing to rewrite', () => {
    const files = [file('core', '0001_a.sql', '-- Reworded.\nCREATE TABLE a (id int);\n')];
    const applied = new Map([
      ['core/0001_a.sql', checksum('-- As first written.\n\nCREATE TABLE a (id int);')],
    ]);
    expect(plan(files, applied)).toEqual({ pending: [], upgrades: [] });
  });
});

describe('plan, for rows recorded under the former whole-file rule', () => {
  const before = '-- As first written.\nCREATE TABLE a (id int);\n';
  const after = '-- Reworded.\nCREATE TABLE a (id int);\n';
  const legacy = new Map<string, LegacyChecksum>([
    ['core/0001_a.sql', { wholeFile: wholeFileChecksum(before), statements: checksum(before) }],
  ]);

  it('accepts the whole-file checksum of the unchanged file, and rewrites it', () => {
    const files = [file('core', '0001_a.sql', before), file('core', '0002_b.sql')];
    const applied = new Map([['core/0001_a.sql', wholeFileChecksum(before)]]);
    const { pending, upgrades } = plan(files, applied, new Map());
    expect(upgrades.map((f) => f.name)).toEqual(['0001_a.sql']);
    expect(pending.map((f) => f.name)).toEqual(['0002_b.sql']);
  });

  it("accepts the table's whole-file checksum of a file whose comments changed since, and rewrites it", () => {
    const applied = new Map([['core/0001_a.sql', wholeFileChecksum(before)]]);
    expect(plan([file('core', '0001_a.sql', after)], applied, legacy).upgrades.map((f) => f.name)).toEqual([
      '0001_a.sql',
    ]);
    // Without the table's entry, the same row is an edited file.
    expect(() => plan([file('core', '0001_a.sql', after)], applied, new Map())).toThrow(
      /migration core\/0001_a.sql was changed after it was applied/,
    );
  });

  it("refuses a change to the statements, whether the row holds the table's checksum or the current rule's", () => {
    const changed = [file('core', '0001_a.sql', '-- Reworded.\nCREATE TABLE a (id bigint);\n')];
    for (const recorded of [wholeFileChecksum(before), checksum(before)]) {
      const applied = new Map([['core/0001_a.sql', recorded]]);
      expect(() => plan(changed, applied, legacy)).toThrow(
        /migration core\/0001_a.sql was changed after it was applied/,
      );
    }
  });

  it("ignores another file's entry in the table", () => {
    const applied = new Map([['core/0002_b.sql', wholeFileChecksum(before)]]);
    expect(() => plan([file('core', '0002_b.sql', after)], applied, legacy)).toThrow(
      /migration core\/0002_b.sql was changed after it was applied/,
    );
  });
});
