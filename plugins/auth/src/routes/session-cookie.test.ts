import { describe, expect, it } from 'vitest';
import { sessionCookieOptions } from './session-cookie.ts';

const secure = (appBaseUrl: string | undefined, development = false) =>
  sessionCookieOptions(appBaseUrl, development, 60).secure;

describe('sessionCookieOptions: Secure except on plain http to this machine', () => {
  it('is Secure for https and for http to any other host', () => {
    expect(secure('https://app.example.com')).toBe(true);
    expect(secure('https://localhost:8443')).toBe(true);
    expect(secure('http://app.example.com')).toBe(true);
    expect(secure('http://10.0.0.5:8080')).toBe(true);
    expect(secure('http://127.example.com')).toBe(true);
  });

  it('is not Secure on http://localhost and the loopback addresses', () => {
    expect(secure('http://localhost:8080')).toBe(false);
    expect(secure('http://127.0.0.1:8080')).toBe(false);
    expect(secure('http://127.1.2.3')).toBe(false);
    expect(secure('http://[::1]:8080')).toBe(false);
  });

  it('without APP_BASE_URL, follows APP_ENV', () => {
    expect(secure(undefined, true)).toBe(false);
    expect(secure(undefined, false)).toBe(true);
  });
});
