import { describe, expect, it } from 'vitest';
import { csvCell } from './lead-csv.ts';

describe('csvCell', () => {
  it('leaves plain text as it is, and writes null and empty as an empty field', () => {
    expect(csvCell('Budi Santoso')).toBe('Budi Santoso');
    expect(csvCell('1+1=2')).toBe('1+1=2');
    expect(csvCell(null)).toBe('');
    expect(csvCell('')).toBe('');
  });

  it('quotes a field holding a comma, a quote or a line break, doubling its quotes (RFC 4180)', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('one\r\ntwo')).toBe('"one\r\ntwo"');
    expect(csvCell('one\ntwo')).toBe('"one\ntwo"');
  });

  it('defuses what a spreadsheet would run as a formula with a leading apostrophe, then quotes as needed', () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+62812')).toBe("'+62812");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe('"\'\rx"');
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
  });
});
