import { describe, expect, it } from 'vitest';
import { checksum, plan, type MigrationFile } from './migrate.ts';

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
    expect(plan(files, applied).map((f) => `${f.scope}/${f.name}`)).toEqual([
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
});
