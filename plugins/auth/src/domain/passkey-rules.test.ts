import { describe, expect, it } from 'vitest';
import { counterAdvances, defaultPasskeyName, userHandleBytes, userHandleOf } from './passkey-rules.ts';

describe('counterAdvances', () => {
  it('accepts a counter that increases, and 0 after 0 (a passkey that keeps no counter)', () => {
    expect(counterAdvances(0, 1)).toBe(true);
    expect(counterAdvances(41, 42)).toBe(true);
    expect(counterAdvances(0, 0)).toBe(true);
  });

  it('refuses a counter that stays or goes back, including 0 after a counter was seen', () => {
    expect(counterAdvances(42, 42)).toBe(false);
    expect(counterAdvances(42, 41)).toBe(false);
    expect(counterAdvances(5, 0)).toBe(false);
  });
});

describe('user handles', () => {
  it('are the 16 bytes of the account id', () => {
    const id = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
    expect(Buffer.from(userHandleBytes(id)).toString('hex')).toBe('0f1e2d3c4b5a69788796a5b4c3d2e1f0');
    expect(Buffer.from(userHandleOf(id), 'base64url').toString('hex')).toBe(
      '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    );
  });
});

describe('defaultPasskeyName', () => {
  it('names the day', () => {
    expect(defaultPasskeyName(new Date('2026-03-04T05:06:07Z'))).toBe('Passkey 2026-03-04');
  });
});
