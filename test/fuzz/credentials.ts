/**
 * The credentials of the fuzz suite's caller, added to each request as it is sent. In `enforce` mode the
 * caller holds every credential a route may ask for, so requests get past authentication into validation,
 * handlers and SQL: gate layer 1 (the dashboard's HMAC over the exact bytes), gate layer 2 (a session token
 * of a gateway user holding the wildcard admin role `*`), a KYC API key, a SCIM bearer token, and a fresh
 * signed-in session cookie with the application's Origin for the cookie routes. In `warn` mode requests carry none of these;
 * some carry a session token an outside dashboard minted for an arbitrary `sub`.
 */
import argon2 from 'argon2';
import type pg from 'pg';
import { systemClock } from '../../gateway/src/clock.ts';
import { createSessionIssuer, type SessionIssuer } from '../../gateway/src/gate/session-issuer.ts';
import { ARGON2_PARAMS } from '../../plugins/auth/src/service/password-hasher.ts';
import { sessionStore } from '../../plugins/auth/src/store/session-store.ts';
import { userStore } from '../../plugins/auth/src/store/user-store.ts';
import { SIGNATURE_HEADER, signatureHeader } from '../../gateway/src/gate/hmac.ts';
import { AUTH_SECRET, COOKIE, INTERNAL_SECRET, mintSession } from '../support/gate.ts';
import type { WireRequest } from './raw-http.ts';
import type { FuzzRequest } from './request-arbitrary.ts';
import { canonical } from '../support/accounts.ts';
import { createScimToken } from '../support/scim.ts';
import { SESSION_HEADER } from '../../gateway/src/gate/gate.ts';

/** The application's origin (APP_BASE_URL of the fuzzed gateway): cookie routes that change state need it. */
export const APP_ORIGIN = 'http://localhost:5173';
const SESSION_TTL_SECONDS = 24 * 3600;

export interface Caller {
  /** The admin's user id: never a target of the suite's own requests (ids of the caller are kept out). */
  userId: string;
  /** The request with every credential (what `enforce` mode is fuzzed with). */
  withCredentials: (request: FuzzRequest) => Promise<WireRequest>;
  /** The request without credentials, or with an outside dashboard's session (what `warn` is fuzzed with). */
  withoutCredentials: (request: FuzzRequest) => Promise<WireRequest>;
  /** Sets the KYC API key once the tenant exists. */
  useApiKey: (key: string) => void;
}

/** Creates the admin user (wildcard role `*`) and its gate session. */
export async function createCaller(pool: pg.Pool): Promise<Caller> {
  const issuer = await createSessionIssuer({
    secrets: [AUTH_SECRET],
    cookieName: COOKIE,
    clock: systemClock,
  });
  const email = canonical('fuzz-admin@example.com');
  const user = await userStore.insertLocal(
    pool,
    email,
    await argon2.hash('fuzz admin password 1', ARGON2_PARAMS),
  );
  if (!user) throw new Error('the fuzz admin exists already');
  await userStore.grantRole(pool, user.id, '*', 'fuzz-suite');
  const session = (await signIn(pool, issuer, user.id, email)).token;
  const scimToken = (await createScimToken(pool, 'fuzz-suite')).token;
  let apiKey: string | undefined;

  return {
    userId: user.id,
    useApiKey: (key) => void (apiKey = key),
    withoutCredentials: withForeignSession,
    withCredentials: async (request) => {
      // A fresh cookie session each time: a fuzzed logout that succeeds ends only its own session.
      const cookie = (await signIn(pool, issuer, user.id, email)).token;
      const headers: Record<string, string | string[]> = {
        ...(apiKey ? { 'x-api-key': apiKey } : {}),
        authorization: `Bearer ${scimToken}`,
        origin: APP_ORIGIN,
        ...request.headers,
        cookie: [request.headers.cookie, `${COOKIE}=${cookie}`].filter(Boolean).join('; '),
        [SESSION_HEADER]: session,
        // Over the bytes before compression: what the body parser hands gate layer 1 after inflating.
        [SIGNATURE_HEADER]: signatureHeader(INTERNAL_SECRET, Math.floor(Date.now() / 1000), {
          method: request.method,
          url: request.path,
          body: request.body?.plain,
        }),
      };
      return { method: request.method, path: request.path, headers, body: request.body?.sent };
    },
  };
}

/** A session of the gateway's own (row + Auth.js token), as signing in makes one. */
async function signIn(pool: pg.Pool, issuer: SessionIssuer, userId: string, email: string) {
  const row = await sessionStore.create(pool, {
    userId,
    ttlSeconds: SESSION_TTL_SECONDS,
    userAgent: 'fuzz-suite',
    ip: null,
    now: new Date(),
  });
  return {
    token: await issuer.issue({ sub: userId, email, roles: ['*'], sid: row.id }, SESSION_TTL_SECONDS),
  };
}

async function withForeignSession(request: FuzzRequest): Promise<WireRequest> {
  const headers = { ...request.headers };
  if (request.foreignSessionSub !== undefined) {
    headers[SESSION_HEADER] = await mintSession({
      claims: { sub: request.foreignSessionSub, roles: ['*'], sid: undefined },
    });
  }
  return { method: request.method, path: request.path, headers, body: request.body?.sent };
}
