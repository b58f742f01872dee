import { describe, expect, it } from 'vitest';
import { compileIntentData } from './compile.ts';
import { loadIntentData } from './intent-data.ts';
import { RULE_TEXT_MAX_CHARS } from '../domain/text.ts';
import { BOUNDARY, EMAIL_TOKEN, PHONE_TOKEN } from './normalise.ts';

const { normalise } = compileIntentData(loadIntentData());
const text = (input: string): string => normalise(input).join(' ');

describe('normalisation', () => {
  it('lower-cases, applies NFKC, strips punctuation and collapses whitespace', () => {
    expect(text('ＤＡＦＴＡＲ   Sekarang')).toBe('daftar sekarang');
    expect(text('  Info\t\tkampus  ')).toBe('info kampus');
    expect(text('"jurusan" (apa) saja?')).toBe('jurusan apa saja');
  });

  it('keeps clause boundaries, never first, last or doubled', () => {
    expect(normalise('Halo kak, mau daftar!!')).toEqual(['halo', BOUNDARY, 'mau', 'daftar']);
    expect(normalise('?! info. . ,')).toEqual(['info']);
    expect(normalise('tidak\nsaya mau daftar')).toEqual(['tidak', BOUNDARY, 'saya', 'mau', 'daftar']);
  });

  it('expands Indonesian chat abbreviations and drops forms of address and particles', () => {
    expect(text('gmn cara daftar kak')).toBe('gimana cara daftar');
    expect(text('brp biaya kuliah')).toBe('berapa biaya kuliah');
    expect(text('sy mau tanya')).toBe('saya mau tanya');
    expect(text('lokasi kampus dmn min')).toBe('lokasi kampus dimana');
    expect(text('mo daftar dong kak')).toBe('mau daftar');
    expect(text('gak bisa, blm udh')).toBe('tidak bisa | belum sudah');
    expect(text('mksh ya')).toBe('terima kasih');
  });

  it('rewrites two-word forms after one-word ones ("no hp" is a number, not a negation)', () => {
    expect(text('no hp saya')).toBe('nomor hp saya');
    expect(text('no wa')).toBe('nomor whatsapp');
    expect(text('di mana')).toBe('dimana');
    expect(text('no thanks')).toBe('no thank');
  });

  it('turns email addresses and Indonesian mobile numbers into placeholders', () => {
    expect(normalise('email saya budi.s@gmail.com ya')).toEqual(['email', 'saya', EMAIL_TOKEN]);
    expect(normalise('0812-3456-7890')).toEqual([PHONE_TOKEN]);
    expect(normalise('+62 812 9876 5432')).toEqual([PHONE_TOKEN]);
    expect(normalise('6281298765432')).toEqual([PHONE_TOKEN]);
    expect(text('biaya 4.250.500')).toBe('biaya 4 | 250 | 500');
  });

  it('collapses elongated letters and expands "kata2" reduplication', () => {
    expect(text('haiii kakkk')).toBe('hai');
    expect(text('makasiiih')).toBe('terima kasih');
    expect(text('kira2 berapa')).toBe('kira kira berapa');
  });

  it('drops apostrophes so English contractions stay one token', () => {
    expect(text("I don't want to")).toBe('i dont want to');
    expect(text('I’m here')).toBe('i am here');
  });

  it('strips suffixes toward the vocabulary and repairs one-letter typos, but not protected words', () => {
    expect(text('biayanya')).toBe('biaya');
    expect(text('pendaftarannya')).toBe('pendaftaran');
    expect(text('fees')).toBe('fee');
    expect(text('pendaftran')).toBe('pendaftaran');
    expect(text('jurursan')).toBe('jurusan');
    expect(text('ada urusan')).toBe('ada urusan');
    expect(text('berupa')).toBe('berupa');
  });

  it('reads only the first RULE_TEXT_MAX_CHARS characters', () => {
    expect(normalise(`mau daftar ${'x'.repeat(RULE_TEXT_MAX_CHARS)} biaya`)).not.toContain('biaya');
    expect(normalise(`mau daftar ${'x '.repeat(2_000)} biaya`)).toContain('biaya');
  });

  it('maps symbols from the data and drops other emoji', () => {
    expect(text('👍🏻')).toBe('oke');
    expect(text('🙏')).toBe('terima kasih');
    expect(normalise('🎉🎉')).toEqual([]);
  });
});
