import { describe, expect, it } from 'vitest';
import { readEnv } from './read-env.ts';
import { coreConfigSchema, withDevelopmentDefaults } from './core-config.ts';

function core(env: Record<string, string>) {
  const parsed = readEnv(coreConfigSchema, env);
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return withDevelopmentDefaults(parsed.value);
}

describe("APP_BASE_URL in development: the gateway's own address unless set", () => {
  it('is http://127.0.0.1:<PORT> for the default and loopback hosts', () => {
    expect(core({ APP_ENV: 'development' }).APP_BASE_URL).toBe('http://127.0.0.1:8080');
    expect(core({ APP_ENV: 'development', HOST: '127.0.0.1', PORT: '3000' }).APP_BASE_URL).toBe(
      'http://127.0.0.1:3000',
    );
    expect(core({ APP_ENV: 'development', HOST: '::' }).APP_BASE_URL).toBe('http://127.0.0.1:8080');
  });

  it('keeps a named or specific host as the browser would type it', () => {
    expect(core({ APP_ENV: 'development', HOST: 'localhost' }).APP_BASE_URL).toBe('http://localhost:8080');
    expect(core({ APP_ENV: 'development', HOST: '::1' }).APP_BASE_URL).toBe('http://[::1]:8080');
    expect(core({ APP_ENV: 'development', HOST: '192.168.1.20' }).APP_BASE_URL).toBe(
      'http://192.168.1.20:8080',
    );
  });

  it('an explicit APP_BASE_URL wins; PORT=0 (no address before listening) has no default', () => {
    expect(core({ APP_ENV: 'development', APP_BASE_URL: 'http://localhost:3000' }).APP_BASE_URL).toBe(
      'http://localhost:3000',
    );
    expect(core({ APP_ENV: 'development', PORT: '0' }).APP_BASE_URL).toBeUndefined();
  });

  it('stays unset outside development', () => {
    expect(core({}).APP_BASE_URL).toBeUndefined();
    expect(core({ APP_ENV: 'test', PORT: '8080' }).APP_BASE_URL).toBeUndefined();
  });
});
