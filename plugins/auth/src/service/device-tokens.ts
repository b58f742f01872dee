import { createHash, randomBytes } from 'node:crypto';
import type { Clock, Database, PluginContext, Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { deviceStore, type DeviceInfo } from '../store/device-store.ts';
import { sessionStore } from '../store/session-store.ts';
import { userStore } from '../store/user-store.ts';
import type { AccountCache } from './account-cache.ts';

/** Device access tokens last 15 minutes (README, "Device tokens"). */
export const ACCESS_TOKEN_SECONDS = 900;

export interface TokenPair {
  accessToken: string;
  accessTokenExpiresAt: Date;
  refreshToken: string;
  /** The family: the session the tokens belong to, which the device list shows and a revocation ends. */
  familyId: string;
}

export type RefreshResult =
  | { ok: true; userId: string; tokens: TokenPair }
  /** `reused`: a spent token came back, and its family was revoked. */
  | { ok: false; reason: 'unknown' | 'reused' | 'ended'; userId: string | null; familyId: string | null };

const hashOf = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * Access/refresh token pairs of device sign-ins (README, "Device tokens"). The access token is the gateway's
 * session token (the format gate layer 2 reads) for a session row of kind 'device'; the refresh token is 256
 * random bits, stored as SHA-256, spent by its one use. A spent token used again revokes its whole family.
 */
export function createDeviceTokens(deps: {
  db: Database;
  clock: Clock;
  sessions: PluginContext<AuthEnv>['sessions'];
  accounts: AccountCache;
  refreshTtlSeconds: number;
}) {
  const horizon = (now: Date) => new Date(now.getTime() + deps.refreshTtlSeconds * 1000);

  /** A new refresh token of the family, and an access token for the account as it is now. */
  const mint = async (
    tx: Parameters<typeof deviceStore.addRefreshToken>[0],
    family: { id: string; userId: string; email: string; roles: readonly string[] },
    now: Date,
  ): Promise<TokenPair> => {
    const refreshToken = randomBytes(32).toString('base64url');
    await deviceStore.addRefreshToken(tx, {
      hash: hashOf(refreshToken),
      sessionId: family.id,
      now,
      expiresAt: horizon(now),
    });
    const accessToken = await deps.sessions.issue(
      { sub: family.userId, email: family.email, roles: [...family.roles], sid: family.id },
      ACCESS_TOKEN_SECONDS,
    );
    return {
      accessToken,
      accessTokenExpiresAt: new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000),
      refreshToken,
      familyId: family.id,
    };
  };

  return {
    /** A new family for a signed-in account on a device. */
    async issue(
      user: { id: string; email: string; roles: readonly string[] },
      device: DeviceInfo,
      client: { userAgent: string | null; ip: string | null },
    ): Promise<TokenPair> {
      const now = deps.clock.now();
      return deps.db.transaction(async (tx) => {
        const id = await deviceStore.createFamily(tx, {
          userId: user.id,
          device,
          now,
          expiresAt: horizon(now),
          ...client,
        });
        return mint(tx, { id, userId: user.id, email: user.email, roles: user.roles }, now);
      });
    },

    /** Spends a refresh token for a new pair; a reuse revokes the family (committed, whatever follows). */
    async refresh(refreshToken: string): Promise<RefreshResult> {
      const now = deps.clock.now();
      const hash = hashOf(refreshToken);
      const result = await deps.db.transaction(async (tx): Promise<RefreshResult> => {
        const familyId = await deviceStore.spend(tx, hash, now);
        if (familyId === null) return { ok: false, reason: 'unknown', userId: null, familyId: null };
        const userId = await deviceStore.extend(tx, familyId, now, horizon(now));
        // Roles and state from the account as it is now, not as it was at sign-in; read in this transaction
        // (a second pool connection while holding this one would starve the pool under load).
        const account = userId === null ? null : await currentAccount(deps.accounts, tx, userId);
        if (userId === null || account === null) return { ok: false, reason: 'ended', userId, familyId };
        return { ok: true, userId, tokens: await mint(tx, { id: familyId, userId, ...account }, now) };
      });
      if (result.ok || result.reason !== 'unknown') return result;
      const reusedFamily = await deviceStore.spentFamily(deps.db, hash);
      if (reusedFamily === null) return result;
      await sessionStore.revoke(deps.db, reusedFamily, 'refresh token reused');
      return { ok: false, reason: 'reused', userId: null, familyId: reusedFamily };
    },
  };
}

export type DeviceTokens = ReturnType<typeof createDeviceTokens>;

/**
 * The account as it is now: this replica's cache (kept current by change notifications), else read through `tx`;
 * null when missing or disabled.
 */
async function currentAccount(accounts: AccountCache, tx: Queryable, userId: string) {
  const cached = accounts.peek(userId);
  return cached === undefined ? userStore.live(tx, userId) : cached;
}
