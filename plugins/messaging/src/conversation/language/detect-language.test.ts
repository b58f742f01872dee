import { describe, expect, it } from 'vitest';
import { detectLanguage } from './detect-language.ts';

describe('detectLanguage', () => {
  it.each([
    'halo',
    'saya mau daftar',
    'nama saya Budi Santoso',
    'berapa biaya kuliahnya kak?',
    'jadwal pendaftaran kapan ya',
    'terima kasih',
    'boleh bicara dengan admin?',
  ])('reads %j as Indonesian', (text) => {
    expect(detectLanguage(text, 'en')).toBe('id');
  });

  it.each([
    'hello',
    'I want to register',
    'my name is John Smith',
    'how much are the fees?',
    'where is the campus',
    'thank you',
    'can I talk to a person please',
  ])('reads %j as English', (text) => {
    expect(detectLanguage(text, 'id')).toBe('en');
  });

  it.each(['budi@example.com', 'Budi Santoso', 'ok', '081234567890', '👍'])(
    'keeps the previous language for %j (no cue either way)',
    (text) => {
      expect(detectLanguage(text, 'en')).toBe('en');
      expect(detectLanguage(text, 'id')).toBe('id');
    },
  );

  it('falls back to Indonesian for a new conversation and for a message without text', () => {
    expect(detectLanguage('Budi Santoso', undefined)).toBe('id');
    expect(detectLanguage(null, undefined)).toBe('id');
    expect(detectLanguage(null, 'en')).toBe('en');
  });
});
