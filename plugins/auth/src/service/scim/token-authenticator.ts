import { timingSafeEqual } from 'node:crypto';
import type { Clock, Database } from '../../../../../gateway/src/plugin-api.ts';
import { bearerToken, hashScimToken, SCIM_TOKEN_PATTERN } from '../../domain/scim/token.ts';
import { scimTokenStore } from '../../store/scim-token-store.ts';

export type ScimTokenFailure = 'missing' | 'malformed' | 'unknown' | 'revoked';
export type ScimTokenCheck =
  { ok: true; token: { id: string; name: string } } | { ok: false; reason: ScimTokenFailure };

/** `last_used_at` is written at most this often per token, not on every request. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Checks the bearer token of a SCIM request (README, "SCIM provisioning"). A header that does not have a
 * token's form is refused without a query; a token is looked up by its SHA-256 hash (the index finds the row,
 * and the stored hash is compared in constant time as well); revoked tokens are refused. Nothing is cached, so
 * a revocation holds on every replica from the next request.
 */
export function createScimTokenAuthenticator(deps: { db: Database; clock: Clock }) {
  return {
    async check(authorization: string | undefined): Promise<ScimTokenCheck> {
      const presented = bearerToken(authorization);
      if (presented === undefined || presented === '') return { ok: false, reason: 'missing' };
      if (!SCIM_TOKEN_PATTERN.test(presented)) return { ok: false, reason: 'malformed' };
      const hash = hashScimToken(presented);
      const found = await scimTokenStore.findByHash(deps.db.pool, hash);
      if (!found || !timingSafeEqual(found.tokenHash, hash)) return { ok: false, reason: 'unknown' };
      if (found.revokedAt !== null) return { ok: false, reason: 'revoked' };
      const now = deps.clock.now();
      if (found.lastUsedAt === null || now.getTime() - found.lastUsedAt.getTime() >= TOUCH_INTERVAL_MS) {
        await scimTokenStore.touch(deps.db.pool, found.id, now);
      }
      return { ok: true, token: { id: found.id, name: found.name } };
    },
  };
}

export type ScimTokenAuthenticator = ReturnType<typeof createScimTokenAuthenticator>;
