import { randomUUID } from 'node:crypto';
import { EncryptJWT } from 'jose';
import type { Clock } from '../clock.ts';
import { deriveSessionKeys } from './session-verifier.ts';

export interface SessionClaims {
  sub: string;
  email: string | null;
  roles: readonly string[];
  /**
   * The server-side session id: revoking it makes the token fail at the gate (plugins/auth/README.md,
   * "Sessions and current roles").
   */
  sid: string;
}

export interface SessionIssuer {
  /** A session token exactly as Auth.js's `encode()` makes it, valid for `maxAgeSeconds`. */
  issue(claims: SessionClaims, maxAgeSeconds: number): Promise<string>;
}

/**
 * Mints the gateway's own session tokens in the Auth.js format (ADR 0004, "Layer 2 follows Auth.js
 * exactly"): JWE, `dir`, A256CBC-HS512, the key derived from the first AUTH_SECRET, its thumbprint as
 * `kid`, `iat`/`exp`/`jti` as Auth.js sets them. So the cookie's value works as `X-Forwarded-Session` and
 * in the realtime handshake, and an Auth.js dashboard sharing the secret can read it.
 */
export async function createSessionIssuer(options: {
  secrets: readonly string[];
  cookieName: string;
  clock: Clock;
}): Promise<SessionIssuer> {
  const keys = await deriveSessionKeys(options.secrets.slice(0, 1), options.cookieName);
  const key = keys.find((k) => k.enc === 'A256CBC-HS512');
  return {
    async issue(claims, maxAgeSeconds) {
      if (!key) throw new Error('AUTH_SECRET is not configured: sessions cannot be issued');
      const now = Math.floor(options.clock.nowMs() / 1000);
      return new EncryptJWT({
        sub: claims.sub,
        email: claims.email,
        roles: [...claims.roles],
        sid: claims.sid,
      })
        .setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512', kid: key.kid })
        .setIssuedAt(now)
        .setExpirationTime(now + maxAgeSeconds)
        .setJti(randomUUID())
        .encrypt(key.key);
    },
  };
}
