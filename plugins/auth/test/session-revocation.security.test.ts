/**
 * Revoking one of the gateway's own sessions ends it everywhere: every replica sharing the database refuses
 * it at the API gate at once, and so does a replica that starts later. A stolen cookie stops working when its
 * user logs out, changes the password or is disabled.
 */
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStore } from '../src/store/session-store.ts';
import { userStore } from '../src/store/user-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { AUTH_SECRET, COOKIE, gateEnv, sign } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { canonical } from '../../../test/support/accounts.ts';
import { createSessionIssuer, type SessionIssuer, systemClock } from '../../../test/support/core.ts';

const PATH = '/api/v1/gate/identity';
let db: TestDatabase;
let replicas: TestGateway[];
let issuer: SessionIssuer;
let userId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const env = { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth' };
  replicas = [
    await startTestGateway({ databaseUrl: db.url, env }),
    await startTestGateway({ databaseUrl: db.url, env }),
  ];
  issuer = await createSessionIssuer({ secrets: [AUTH_SECRET], cookieName: COOKIE, clock: systemClock });
  const hash = await argon2.hash('a long enough password', { type: argon2.argon2id });
  userId = (await userStore.insertLocal(db.pool, canonical('agent@example.com'), hash))?.id ?? '';
});
afterAll(async () => {
  for (const gateway of replicas ?? []) await gateway.close();
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

const status = async (gateway: TestGateway, token: string) =>
  (
    await fetch(`${gateway.url}${PATH}`, {
      headers: { 'x-internal-signature': sign({ method: 'GET', url: PATH }), 'x-forwarded-session': token },
    })
  ).status;

describe('gateway-issued sessions', () => {
  it('pass the gate on every replica, and once revoked are refused on all of them at once', async () => {
    const kept = await sessionToken();
    const other = await sessionToken();
    for (const gateway of replicas) {
      expect(await status(gateway, kept.token)).toBe(200);
      expect(await status(gateway, other.token)).toBe(200);
    }
    // As a password change does: every other session of the user goes; the current one stays.
    expect(
      await sessionStore.revokeAllForUser(db.pool, userId, 'password changed', kept.sid),
    ).toBeGreaterThanOrEqual(1);
    for (const gateway of replicas) {
      await expect.poll(() => status(gateway, other.token), { interval: 20 }).toBe(401);
      expect(await status(gateway, kept.token)).toBe(200);
    }
    await replicas[0]?.audit.flush();
    const { rows } = await db.pool.query(
      "SELECT payload->>'reason' AS reason FROM audit_log WHERE kind = 'api.auth.session_failed'",
    );
    expect(rows.map((row: { reason: string }) => row.reason)).toContain('revoked');
  });

  it('a replica that starts after the revocation refuses it too', async () => {
    const { sid, token } = await sessionToken();
    await sessionStore.revoke(db.pool, sid, 'logout');
    const late = await startTestGateway({
      databaseUrl: db.url,
      env: { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth' },
    });
    try {
      expect(await status(late, token)).toBe(401);
    } finally {
      await late.close();
    }
  });
});
