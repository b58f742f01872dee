import { describe, expect, it } from 'vitest';
import { systemClock } from '../clock.ts';
import { createSessionIssuer } from './session-issuer.ts';
import { createSessionVerifier, type SessionIdentity, type SessionResult } from './session-verifier.ts';

const SECRET = 'session-verifier-unit-test-secret';
const COOKIE = 'authjs.session-token';
const claims = { sub: 'u-1', email: 'ada@example.com', roles: ['*'], sid: 's-1' };

async function setup() {
  const verifier = await createSessionVerifier({
    secrets: [SECRET],
    cookieName: COOKIE,
    clock: systemClock,
    cacheSize: 10,
  });
  const issuer = await createSessionIssuer({ secrets: [SECRET], cookieName: COOKIE, clock: systemClock });
  return { verifier, token: await issuer.issue(claims, 3600) };
}

describe('session resolver', () => {
  it('answers every verification, cached or not, with the identity as it is now', async () => {
    const { verifier, token } = await setup();
    let roles: string[] = ['*'];
    verifier.setResolver((identity) => ({ ...identity, roles }));
    expect(await verifier.verify(token)).toMatchObject({ ok: true, identity: { roles: ['*'] } });
    roles = [];
    // The token is cached now; the resolver still decides.
    expect(await verifier.verify(token)).toMatchObject({ ok: true, identity: { sub: 'u-1', roles: [] } });
  });

  it('stays synchronous on a cached token when the resolver answers synchronously (ADR 0004)', async () => {
    const { verifier, token } = await setup();
    verifier.setResolver((identity) => identity);
    await verifier.verify(token);
    const result = verifier.verify(token);
    expect(result).not.toBeInstanceOf(Promise);
    expect((result as SessionResult).ok).toBe(true);
  });

  it('rejects as `unresolved` when the resolver answers null, synchronously or not', async () => {
    const { verifier, token } = await setup();
    let answer: 'sync' | 'async' = 'async';
    verifier.setResolver((): SessionIdentity | null | Promise<null> =>
      answer === 'sync' ? null : Promise.resolve(null),
    );
    expect(await verifier.verify(token)).toEqual({ ok: false, reason: 'unresolved' });
    answer = 'sync';
    expect(await verifier.verify(token)).toEqual({ ok: false, reason: 'unresolved' });
  });

  it('runs after the checks: a refused check never reaches it', async () => {
    const { verifier, token } = await setup();
    const seen: string[] = [];
    verifier.addCheck(() => false);
    verifier.setResolver((identity) => {
      seen.push(identity.sub);
      return identity;
    });
    expect(await verifier.verify(token)).toEqual({ ok: false, reason: 'revoked' });
    expect(seen).toEqual([]);
  });

  it('is set at most once', async () => {
    const { verifier } = await setup();
    verifier.setResolver((identity) => identity);
    expect(() => verifier.setResolver((identity) => identity)).toThrow('already set');
  });
});
