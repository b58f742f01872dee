import { describe, expect, it } from 'vitest';
import { mayUsePassword, validateAuthDeployment, type AuthDeploymentInput } from './validate.ts';

const base: AuthDeploymentInput = {
  appEnv: 'production',
  ldapEnabled: false,
  breakGlass: true,
  hasAuthSecret: true,
};
const oidc = { oidcIssuer: 'https://idp.example.com', oidcClientId: 'gatehouse' };

describe('validateAuthDeployment (README, "Deployment settings" and "Modes")', () => {
  it('refuses a missing AUTH_MODE outside development', () => {
    expect(validateAuthDeployment(base)).toEqual({
      ok: false,
      problems: [
        { variable: 'AUTH_MODE', message: 'required outside development (local, oidc or local+oidc)' },
      ],
    });
  });

  it('in development, unset AUTH_MODE behaves as local, plus SSO when OIDC_ENABLED=true', () => {
    expect(validateAuthDeployment({ ...base, appEnv: 'development' })).toMatchObject({
      ok: true,
      value: { mode: 'local', fallback: true, oidc: false },
    });
    expect(
      validateAuthDeployment({ ...base, appEnv: 'development', oidcEnabled: true, ...oidc }),
    ).toMatchObject({
      ok: true,
      value: { mode: 'local+oidc', fallback: true, oidc: true },
    });
  });

  it('needs AUTH_SECRET outside development, where sign-in makes Auth.js tokens with it', () => {
    expect(validateAuthDeployment({ ...base, authMode: 'local', hasAuthSecret: false })).toMatchObject({
      ok: false,
      problems: [{ variable: 'AUTH_SECRET' }],
    });
    expect(validateAuthDeployment({ ...base, appEnv: 'development', hasAuthSecret: false }).ok).toBe(true);
  });

  it('AUTH_MODE=local with OIDC_ENABLED=true is a boot error', () => {
    expect(validateAuthDeployment({ ...base, authMode: 'local', oidcEnabled: true })).toMatchObject({
      ok: false,
      problems: [{ variable: 'OIDC_ENABLED' }],
    });
    expect(validateAuthDeployment({ ...base, authMode: 'local', oidcEnabled: false }).ok).toBe(true);
  });

  it('LDAP_ENABLED=true with AUTH_MODE=oidc is a boot error', () => {
    expect(validateAuthDeployment({ ...base, authMode: 'oidc', ldapEnabled: true, ...oidc })).toMatchObject({
      ok: false,
      problems: [{ variable: 'LDAP_ENABLED' }],
    });
  });

  it('oidc modes need the issuer and the client id', () => {
    expect(validateAuthDeployment({ ...base, authMode: 'local+oidc' })).toMatchObject({
      ok: false,
      problems: [{ variable: 'OIDC_ISSUER' }, { variable: 'OIDC_CLIENT_ID' }],
    });
  });

  it('reports every problem at once', () => {
    const verdict = validateAuthDeployment({ ...base, authMode: 'oidc', ldapEnabled: true });
    expect(!verdict.ok && verdict.problems.map((p) => p.variable)).toEqual([
      'LDAP_ENABLED',
      'OIDC_ISSUER',
      'OIDC_CLIENT_ID',
    ]);
  });

  it.each([
    ['local', true, { password: 'everyone', registration: 'per-admin-toggle', oidc: false }],
    ['local+oidc', true, { password: 'everyone', registration: 'per-admin-toggle', oidc: true }],
    ['oidc', true, { password: 'break-glass-admins', registration: 'off', oidc: true }],
    ['oidc', false, { password: 'nobody', registration: 'off', oidc: true }],
  ] as const)('the mode table: %s (break-glass %s)', (authMode, breakGlass, expected) => {
    expect(validateAuthDeployment({ ...base, ...oidc, authMode, breakGlass })).toMatchObject({
      ok: true,
      value: expected,
    });
  });

  it('LDAP is offered in local modes only when enabled', () => {
    const ldap = {
      ldapUrl: 'ldap://directory:389',
      ldapUserBase: 'ou=people,dc=example,dc=com',
      ldapBind: true,
    };
    expect(validateAuthDeployment({ ...base, ...ldap, authMode: 'local', ldapEnabled: true })).toMatchObject({
      value: { ldap: true },
    });
    expect(validateAuthDeployment({ ...base, authMode: 'local' })).toMatchObject({ value: { ldap: false } });
  });

  it('LDAP needs its URL, user base and service account', () => {
    expect(validateAuthDeployment({ ...base, authMode: 'local', ldapEnabled: true })).toMatchObject({
      ok: false,
      problems: [{ variable: 'LDAP_URL' }, { variable: 'LDAP_USER_BASE' }, { variable: 'LDAP_BIND_DN' }],
    });
  });

  it('matches BOOTSTRAP_ADMIN_EMAIL case-insensitively', () => {
    expect(
      validateAuthDeployment({ ...base, authMode: 'local', bootstrapAdminEmail: 'Admin@Example.COM' }),
    ).toMatchObject({
      value: { bootstrapAdminEmail: 'admin@example.com' },
    });
  });

  describe('passkey relying party (README, WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS)', () => {
    it('defaults to APP_BASE_URL', () => {
      expect(
        validateAuthDeployment({ ...base, authMode: 'local', appBaseUrl: 'https://app.example.com/' }),
      ).toMatchObject({
        value: { webauthn: { rpId: 'app.example.com', origins: ['https://app.example.com'] } },
      });
    });

    it('accepts a registrable parent domain for several origins', () => {
      expect(
        validateAuthDeployment({
          ...base,
          authMode: 'local',
          webauthnRpId: 'example.com',
          webauthnOrigins: ['https://a.example.com', 'https://b.example.com'],
        }),
      ).toMatchObject({ value: { webauthn: { rpId: 'example.com' } } });
    });

    it('refuses an explicit RP id that is not the domain of every origin, and http origins in production', () => {
      expect(
        validateAuthDeployment({
          ...base,
          authMode: 'local',
          webauthnRpId: 'example.com',
          webauthnOrigins: ['https://evil.test', 'http://a.example.com'],
        }),
      ).toMatchObject({
        ok: false,
        problems: [{ variable: 'WEBAUTHN_RP_ID' }, { variable: 'WEBAUTHN_ORIGINS' }],
      });
    });

    it('leaves passkeys off, without an error, when an http APP_BASE_URL is all there is', () => {
      expect(
        validateAuthDeployment({ ...base, authMode: 'local', appBaseUrl: 'http://app.example.com' }),
      ).toMatchObject({ ok: true, value: { webauthn: null } });
      expect(
        validateAuthDeployment({ ...base, authMode: 'local', appBaseUrl: 'http://localhost:3000' }),
      ).toMatchObject({
        value: { webauthn: { rpId: 'localhost' } },
      });
    });
  });
});

describe('mayUsePassword (README, "Modes")', () => {
  it('lets everyone, only wildcard admins, or nobody use a password', () => {
    expect(mayUsePassword('everyone', [])).toBe(true);
    expect(mayUsePassword('break-glass-admins', ['users:admin'])).toBe(false);
    expect(mayUsePassword('break-glass-admins', ['agent', '*'])).toBe(true);
    expect(mayUsePassword('nobody', ['*'])).toBe(false);
  });
});
