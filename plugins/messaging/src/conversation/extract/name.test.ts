import { describe, expect, it } from 'vitest';
import { asName, extractName } from './name.ts';

const find = (text: string, expectName = false) => extractName(text, { expectName })?.name ?? null;

describe('extractName: explicit phrases', () => {
  it.each([
    ['nama saya Budi Santoso', 'Budi Santoso'],
    ['Nama saya budi santoso', 'Budi Santoso'],
    ['NAMA SAYA BUDI SANTOSO', 'Budi Santoso'],
    ['nama saya adalah Siti Nurhaliza', 'Siti Nurhaliza'],
    ['Nama saya: siti nurhaliza', 'Siti Nurhaliza'],
    ['nama lengkap saya Dewi Lestari Putri', 'Dewi Lestari Putri'],
    ['namaku Andi', 'Andi'],
    ['nama aku rina ya kak', 'Rina'],
    ['perkenalkan, nama saya Dewi Lestari.', 'Dewi Lestari'],
    ['halo, nama saya Budi Santoso dan saya mau daftar', 'Budi Santoso'],
    ['nama saya budi santoso saya mau daftar', 'Budi Santoso'],
    ['Nama: Budi Santoso\nEmail: budi@example.com', 'Budi Santoso'],
    ['Nama lengkap = Agus Salim', 'Agus Salim'],
    ['saya bernama Putri', 'Putri'],
    ['panggil saja Joko', 'Joko'],
    ['biasa dipanggil Ucok ya kak', 'Ucok'],
    ['nama saya Pak Budi', 'Budi'],
    ['nama saya M. Rizky Pratama', 'M. Rizky Pratama'],
    ['nama saya A. Rahman', 'A. Rahman'],
    ["nama saya siti-aisyah o'neil", "Siti-Aisyah O'Neil"],
    ['my name is John Smith', 'John Smith'],
    ["My name's jane doe.", 'Jane Doe'],
    ['my full name is Maria de Souza', 'Maria De Souza'],
    ['call me Kevin', 'Kevin'],
    ['Name: Anna McDonald', 'Anna McDonald'],
    ['Berapa biaya kuliah? nama saya Budi', 'Budi'],
    ['nama saya Indah', 'Indah'],
    ['nama saya Bagus Untung', 'Bagus Untung'],
  ])('%j → %j', (text, name) => {
    expect(find(text)).toBe(name);
  });
});

describe('extractName: loose phrases at the start of a clause, capitalised', () => {
  it.each([
    ['halo kak, saya Rina', 'Rina'],
    ['Saya Budi, mau tanya biaya', 'Budi'],
    ['selamat pagi, saya Ahmad Fauzi', 'Ahmad Fauzi'],
    ['perkenalkan saya Lina', 'Lina'],
    ["I'm Sarah", 'Sarah'],
    ['Hi, I am Maria Garcia!', 'Maria Garcia'],
    ['hello this is Tom', 'Tom'],
  ])('%j → %j', (text, name) => {
    expect(find(text)).toBe(name);
  });

  it('accepts a lower-case "saya budi" only when the bot has asked for the name', () => {
    expect(find('saya budi')).toBeNull();
    expect(find('saya budi', true)).toBe('Budi');
  });
});

describe('extractName: bare replies when the bot asked for the name', () => {
  it.each([
    ['Budi Santoso', 'Budi Santoso'],
    ['budi', 'Budi'],
    ['Budi Santoso.', 'Budi Santoso'],
    ['Budi Santoso, budi@example.com'.replace('budi@example.com', ' , '), 'Budi Santoso'],
    ['Budi Santoso email  , ', 'Budi Santoso'],
    ['Pak Budi', 'Budi'],
  ])('%j → %j', (text, name) => {
    expect(find(text, true)).toBe(name);
  });

  it.each([
    'halo',
    'ok',
    'ya',
    'terima kasih',
    'berapa biayanya',
    'jadwalnya kapan',
    'Teknik Informatika',
    'kelas 12',
    'Budi mau tanya biaya',
    'hahaha',
    'Pak',
    '🙂',
    'a b c d e f',
  ])('no name in %j', (text) => {
    expect(find(text, true)).toBeNull();
  });

  it('is not read as a name when the bot has not asked for it', () => {
    expect(find('Budi Santoso')).toBeNull();
  });
});

describe('extractName: negative cases', () => {
  it.each([
    'saya mau daftar',
    'Saya Mau Daftar',
    'nama saya belum terdaftar',
    'saya tidak tahu',
    'saya ingin bertanya',
    'saya sudah daftar kemarin',
    'saya dari Bandung',
    'anak saya Budi mau daftar',
    'nama anak saya Budi',
    'saya 17 tahun',
    'email saya , ',
    'saya siswa kelas 12',
    'saya lulusan SMA',
    'nama saya?',
    'Saya Tertarik',
    "I'm interested in computer science",
    'I am not sure',
    'I want to register',
    'my name is not important',
    'tolong panggilkan admin',
    'panggil admin',
  ])('no name in %j', (text) => {
    expect(find(text)).toBeNull();
    expect(find(text, true)).toBeNull();
  });
});

describe('asName (checks a model answer)', () => {
  it('title-cases a plausible name and refuses the rest', () => {
    expect(asName('budi santoso')).toBe('Budi Santoso');
    expect(asName('Budi Santoso.')).toBe('Budi Santoso');
    expect(asName('Bapak Budi')).toBe('Budi');
    expect(asName('mau daftar')).toBeNull();
    expect(asName('Budi 123')).toBeNull();
    expect(asName('One Two Three Four Five Six')).toBeNull();
    expect(asName('')).toBeNull();
  });
});
