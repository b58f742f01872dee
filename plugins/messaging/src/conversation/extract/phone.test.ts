import { describe, expect, it } from 'vitest';
import { normalisePhone, scanPhones } from './phone.ts';

describe('normalisePhone (the 62-prefixed format)', () => {
  it.each([
    ['081234567890', '6281234567890'],
    ['0812-3456-7890', '6281234567890'],
    ['0812 3456 7890', '6281234567890'],
    ['0812.3456.7890', '6281234567890'],
    ['(0812) 3456 7890', '6281234567890'],
    ['+62 812 3456 7890', '6281234567890'],
    ['+62-812-3456-7890', '6281234567890'],
    ['+6281234567890', '6281234567890'],
    ['(+62) 812-3456-7890', '6281234567890'],
    ['+62 (0)812 3456 7890', '6281234567890'],
    ['62812 3456 7890', '6281234567890'],
    ['6281234567890', '6281234567890'],
    ['0062 812 3456 7890', '6281234567890'],
    ['0812345678', '62812345678'],
    ['0812-3456-78901', '62812345678901'],
    ['085712345678', '6285712345678'],
  ])('normalises %j to %j', (raw, expected) => {
    expect(normalisePhone(raw)).toBe(expected);
  });

  it.each([
    ['too short', '0812345'],
    ['too short by one', '081234567'],
    ['too long', '08123456789012'],
    ['a Jakarta landline', '021-5551234'],
    ['a foreign number', '+1 415 555 0100'],
    ['a Malaysian mobile', '+60 12 345 6789'],
    ['no trunk or country prefix', '81234567890'],
    ['not a mobile prefix', '0801234567890'],
    ['letters inside', '0812-3456-abcd'],
    ['a plus in the middle', '0812+34567890'],
    ['empty', ''],
  ])('rejects %s (%j)', (_why, raw) => {
    expect(normalisePhone(raw)).toBeNull();
  });
});

describe('scanPhones', () => {
  it('finds numbers in a sentence, in any writing, once each', () => {
    expect(scanPhones('no hp saya 0812-3456-7890, wa +62 812 3456 7890').phones).toEqual(['6281234567890']);
    expect(scanPhones('hubungi 081234567890 atau 085712345678').phones).toEqual([
      '6281234567890',
      '6285712345678',
    ]);
  });

  it('separates a number from digits typed next to it', () => {
    expect(scanPhones('lulus 2024 081234567890').phones).toEqual(['6281234567890']);
    expect(scanPhones('081234567890 2024').phones).toEqual(['6281234567890']);
  });

  it('ignores prices, dates, years and class numbers', () => {
    expect(scanPhones('biaya Rp 5.000.000 per semester').phones).toEqual([]);
    expect(scanPhones('tanggal 12-05-2024 jam 10.00').phones).toEqual([]);
    expect(scanPhones('saya kelas 12 lulus 2025').phones).toEqual([]);
  });

  it('leaves a clause break where a number was, for the name extractor', () => {
    expect(scanPhones('Budi 081234567890').rest).toBe('Budi  , ');
  });
});
