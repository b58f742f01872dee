import type { Request, Response } from 'express';
import {
  isDevelopment,
  type PluginContext,
  type Queryable,
  type SessionIdentity,
} from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { isUserId } from '../domain/user-id.ts';
import { authErrors } from '../errors.ts';
import { sessionStore } from '../store/session-store.ts';
import type { UserRow } from '../store/user-store.ts';
import { readSessionCookie, sameOrigin, sessionCookieOptions } from './session-cookie.ts';

/**
 * The browser side of sessions, shared by the routes: start one (server-side row, Auth.js token, cookie)
 * and find the one a request's cookie carries.
 */
export function webSessions(ctx: PluginContext<AuthEnv>) {
  const ttl = ctx.config.SESSION_TTL_SECONDS;
  const cookieName = ctx.sessions.cookieName;
  const cookieOptions = sessionCookieOptions(ctx.core.APP_BASE_URL, isDevelopment(ctx.core), ttl);
  /**
   * The identity of the request's session cookie, verified like gate layer 2 (revocation included, and
   * resolved by the core: current roles); 401 `auth.session.missing` without one. `changes`: the request
   * changes state, so it must also come from APP_BASE_URL's origin (README, "Web sessions").
   */
  const fromCookie = async (req: Request, options: { changes: boolean }): Promise<SessionIdentity> => {
    if (options.changes && !sameOrigin(req, ctx.core.APP_BASE_URL))
      throw authErrors.create('auth.origin.mismatch');
    const token = readSessionCookie(req, cookieName);
    const verified = token ? await ctx.sessions.verify(token) : null;
    if (!verified?.ok) throw authErrors.create('auth.session.missing');
    return verified.identity;
  };

  return {
    cookieName,
    cookieOptions,
    fromCookie,

    /**
     * Creates the server-side session and sets its cookie; returns the row's expiry. `prove` runs in the
     * transaction that inserts the session (a second factor's compare-and-set, a pending sign-in used up): when
     * it throws, no session exists and nothing it wrote stays.
     */
    async start(
      req: Request,
      res: Response,
      user: Pick<UserRow, 'id' | 'email' | 'roles'>,
      options: { prove?: (tx: Queryable) => Promise<void> } = {},
    ): Promise<{ expiresAt: Date }> {
      const row = {
        userId: user.id,
        ttlSeconds: ttl,
        userAgent: req.get('user-agent') ?? null,
        ip: req.ip ?? null,
        now: ctx.clock.now(),
      };
      const { prove } = options;
      const session = prove
        ? await ctx.db.transaction(async (tx) => {
            await prove(tx);
            return sessionStore.create(tx, { ...row, factorVerified: true });
          })
        : await sessionStore.create(ctx.db.pool, row);
      const token = await ctx.sessions.issue(
        { sub: user.id, email: user.email, roles: user.roles, sid: session.id },
        ttl,
      );
      res.cookie(cookieName, token, cookieOptions);
      return session;
    },

    /**
     * The request's cookie as one of the gateway's own sessions (a `sid` and an account id as `sub`):
     * what routes about the signed-in account need. A token minted by an external dashboard names no
     * account of ours, so it gets 401 `auth.session.missing` like no session at all.
     */
    async ownFromCookie(
      req: Request,
      options: { changes: boolean },
    ): Promise<SessionIdentity & { sid: string }> {
      const identity = await fromCookie(req, options);
      if (identity.sid === null || !isUserId(identity.sub)) throw authErrors.create('auth.session.missing');
      return { ...identity, sid: identity.sid };
    },
  };
}

export type WebSessions = ReturnType<typeof webSessions>;
