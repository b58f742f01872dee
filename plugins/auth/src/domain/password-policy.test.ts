import { describe, expect, it } from 'vitest';
import { loadDenylist } from '../service/password-denylist.ts';
import { checkPassword, emailName } from './password-policy.ts';

const denylist = loadDenylist();
const check = (password: string, minLength = 12, email = 'ada.lovelace@example.com') =>
  checkPassword({ password, email, minLength }, denylist);
const codes = (result: ReturnType<typeof check>) => (result.ok ? [] : result.violations.map((v) => v.code));

describe('password policy (README, "Passwords")', () => {
  it('accepts a long, uncommon password and returns it NFKC-normalised', () => {
    expect(check('ﬁne violet umbrella 42')).toEqual({ ok: true, password: 'fine violet umbrella 42' });
  });

  it('each rule has its own code', () => {
    expect(codes(check('short pw'))).toEqual(['auth.password.too_short']);
    expect(codes(check('x'.repeat(257)))).toEqual(['auth.password.too_long']);
    expect(codes(check('iloveyou', 8))).toEqual(['auth.password.common']);
    expect(codes(check('my-ada.lovelace-secret'))).toEqual(['auth.password.contains_email']);
  });

  it('matches the denylist case-insensitively and reports every rule broken', () => {
    expect(codes(check('PassWord', 8))).toEqual(['auth.password.common']);
    expect(codes(check('password', 12))).toEqual(['auth.password.too_short', 'auth.password.common']);
  });

  it('counts code points, not UTF-16 units', () => {
    // 8 emoji are 16 UTF-16 units but 8 characters.
    expect(codes(check('🦄🦄🦄🦄🦄🦄🦄🦄', 9))).toEqual(['auth.password.too_short']);
    expect(check('🦄🦄🦄🦄🦄🦄🦄🦄🦄', 9).ok).toBe(true);
  });

  it('never goes below the floor of 8, whatever the setting says', () => {
    expect(codes(check('xq7#Lm2', 4))).toEqual(['auth.password.too_short']);
  });

  it('takes the email name before "@" and "+tag", and ignores names under 3 characters', () => {
    expect(emailName('Ada.Lovelace+news@example.com')).toBe('ada.lovelace');
    expect(emailName('al@example.com')).toBeNull();
  });
});
