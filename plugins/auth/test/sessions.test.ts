/**
 * The gateway's own sessions are Auth.js session tokens, so a dashboard can forward the cookie's value to the
 * API gate and Auth.js reads what the gateway mints (docs/api-auth-gate.md). Revocation is in
 * session-revocation.security.test.ts.
 */
import { decode } from '@auth/core/jwt';
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStore } from '../src/store/session-store.ts';
import { userStore } from '../src/store/user-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { AUTH_SECRET, COOKIE } from '../../../test/support/gate.ts';
import { canonical } from '../../../test/support/accounts.ts';
import { createSessionIssuer, type SessionIssuer, systemClock } from '../../../test/support/core.ts';

let db: TestDatabase;
let issuer: SessionIssuer;
let userId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  issuer = await createSessionIssuer({ secrets: [AUTH_SECRET], cookieName: COOKIE, clock: systemClock });
  const hash = await argon2.hash('a long enough password', { type: argon2.argon2id });
  userId = (await userStore.insertLocal(db.pool, canonical('agent@example.com'), hash))?.id ?? '';
});
afterAll(async () => {
  await db?.drop();
});

async function sessionToken(): Promise<{ sid: string; token: string }> {
  const { id } = await sessionStore.create(db.pool, {
    userId,
    ttlSeconds: 3600,
    userAgent: 'test',
    ip: '127.0.0.1',
    now: new Date(),
  });
  return {
    sid: id,
    token: await issuer.issue({ sub: userId, email: 'agent@example.com', roles: ['agent'], sid: id }, 3600),
  };
}

describe('gateway-issued sessions', () => {
  it('are Auth.js tokens: @auth/core decode() reads them with the same secret and salt', async () => {
    const { sid, token } = await sessionToken();
    expect(await decode({ token, secret: AUTH_SECRET, salt: COOKIE })).toMatchObject({
      sub: userId,
      email: 'agent@example.com',
      roles: ['agent'],
      sid,
    });
  });
});
