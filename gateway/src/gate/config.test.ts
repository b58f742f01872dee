import { describe, expect, it } from 'vitest';
import { readEnv } from '../config/read-env.ts';
import { checkGateConfig, gateConfigSchema } from './config.ts';

const check = (env: Record<string, string>, development = false) => {
  const parsed = readEnv(gateConfigSchema, env);
  return parsed.ok ? checkGateConfig(parsed.value, development, env.APP_BASE_URL) : parsed;
};
const secrets = { INTERNAL_API_SECRET: 'i'.repeat(32), AUTH_SECRET: 'a' };

describe('gate settings', () => {
  it('API_AUTH_MODE is required outside development and defaults to disabled in it', () => {
    expect(check({})).toEqual({
      ok: false,
      problems: ['API_AUTH_MODE: required outside development (disabled, warn or enforce)'],
    });
    expect(check({}, true)).toMatchObject({ ok: true, value: { mode: 'disabled' } });
  });

  it('warn and enforce need both secrets', () => {
    expect(check({ API_AUTH_MODE: 'enforce' })).toEqual({
      ok: false,
      problems: [
        'INTERNAL_API_SECRET: required when API_AUTH_MODE is enforce',
        'AUTH_SECRET: required when API_AUTH_MODE is enforce',
      ],
    });
    expect(check({ API_AUTH_MODE: 'warn', ...secrets })).toMatchObject({ ok: true, value: { mode: 'warn' } });
  });

  it('accepts at most two secrets, each HMAC secret at least 32 characters', () => {
    expect(
      check({
        API_AUTH_MODE: 'warn',
        ...secrets,
        INTERNAL_API_SECRET: `${'a'.repeat(32)},${'b'.repeat(32)},${'c'.repeat(32)}`,
      }),
    ).toMatchObject({
      ok: false,
      problems: ['INTERNAL_API_SECRET: at most two secrets (the current one and the one being rotated out)'],
    });
    expect(check({ API_AUTH_MODE: 'warn', ...secrets, INTERNAL_API_SECRET: 'short' })).toMatchObject({
      ok: false,
      problems: ['INTERNAL_API_SECRET[0]: each secret must be at least 32 characters'],
    });
  });

  it('names the session cookie as Auth.js does', () => {
    expect(check({ API_AUTH_MODE: 'disabled' })).toMatchObject({
      value: { sessionCookie: 'authjs.session-token' },
    });
    expect(check({ API_AUTH_MODE: 'disabled', APP_BASE_URL: 'https://dash.example.com' })).toMatchObject({
      value: { sessionCookie: '__Secure-authjs.session-token' },
    });
    expect(check({ API_AUTH_MODE: 'disabled', APP_BASE_URL: 'HTTPS://DASH.example.com' })).toMatchObject({
      value: { sessionCookie: '__Secure-authjs.session-token' },
    });
    expect(check({ API_AUTH_MODE: 'disabled', AUTH_SESSION_COOKIE: 'my.session' })).toMatchObject({
      value: { sessionCookie: 'my.session' },
    });
  });

  it('validates GATEWAY_UPSTREAMS', () => {
    expect(check({ API_AUTH_MODE: 'disabled', GATEWAY_UPSTREAMS: 'nope' })).toMatchObject({ ok: false });
    expect(
      check({ API_AUTH_MODE: 'disabled', GATEWAY_UPSTREAMS: '[{"prefix":"/x/","target":"http://a"}]' }),
    ).toMatchObject({ ok: false });
    expect(
      check({ API_AUTH_MODE: 'disabled', GATEWAY_UPSTREAMS: '[{"prefix":"/x","target":"ftp://a"}]' }),
    ).toMatchObject({ ok: false });
    // A typo in a key is an error naming the entry, not silently ignored.
    expect(
      check({
        API_AUTH_MODE: 'disabled',
        GATEWAY_UPSTREAMS:
          '[{"prefix":"/x","target":"http://a"},{"prefix":"/y","target":"http://b","stripprefix":true}]',
      }),
    ).toEqual({ ok: false, problems: ['GATEWAY_UPSTREAMS[1]: Unrecognized key: "stripprefix"'] });
    expect(
      check({ API_AUTH_MODE: 'disabled', GATEWAY_UPSTREAMS: '[{"prefix":"/x","target":"http://a:1"}]' }),
    ).toMatchObject({
      ok: true,
      value: { upstreams: [{ prefix: '/x', target: 'http://a:1', exempt: false, stripPrefix: false }] },
    });
  });
});
