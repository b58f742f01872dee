import { describe, expect, it } from 'vitest';
import { normaliseEmail, scanEmails } from './email.ts';

describe('normaliseEmail', () => {
  it.each([
    ['budi@example.com', 'budi@example.com'],
    ['Budi.Santoso@Example.CO.ID', 'Budi.Santoso@example.co.id'],
    ['budi+pmb@gmail.com', 'budi+pmb@gmail.com'],
    ['budi_s-1@mail.kampus.ac.id', 'budi_s-1@mail.kampus.ac.id'],
    ['budi@example.com.', 'budi@example.com'],
    ['  budi@example.com!  ', 'budi@example.com'],
    ["o'neil@example.org", "o'neil@example.org"],
    ['user@xn--bcher-kva.com', 'user@xn--bcher-kva.com'],
  ])('accepts %j as %j', (raw, expected) => {
    expect(normaliseEmail(raw)).toBe(expected);
  });

  it.each([
    'abc@',
    '@example.com',
    'budi@gmail',
    'budi@@example.com',
    'budi@example..com',
    '.budi@example.com',
    'budi.@example.com',
    'bu..di@example.com',
    'budi@-example.com',
    'budi@example-.com',
    'budi@example.c',
    'budi@example.123',
    'budi santoso@example.com',
    'budí@example.com',
    `${'a'.repeat(65)}@example.com`,
    `budi@${'a'.repeat(250)}.com`,
  ])('rejects %j', (raw) => {
    expect(normaliseEmail(raw)).toBeNull();
  });
});

describe('scanEmails', () => {
  it('finds the address in a sentence and leaves a clause break in its place', () => {
    const scan = scanEmails('email saya Budi@Example.com ya kak.');
    expect(scan.emails).toEqual(['Budi@example.com']);
    expect(scan.invalidAttempt).toBe(false);
    expect(scan.rest).not.toContain('@');
  });

  it('lists distinct addresses once each', () => {
    expect(scanEmails('a@x.com, b@y.com, A@X.COM').emails).toEqual(['a@x.com', 'b@y.com']);
  });

  it('reports an attempt at an address that does not validate', () => {
    expect(scanEmails('abc@').invalidAttempt).toBe(true);
    expect(scanEmails('emailnya budi@gmail').invalidAttempt).toBe(true);
    expect(scanEmails('budi@example.com dan @kampus').invalidAttempt).toBe(false);
    expect(scanEmails('tidak punya email').invalidAttempt).toBe(false);
  });
});
