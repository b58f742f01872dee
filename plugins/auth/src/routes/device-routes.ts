import type { Request } from 'express';
import type { PluginContext, SessionIdentity } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { deviceParams, refreshSchema } from '../domain/oidc-requests.ts';
import { isUserId } from '../domain/user-id.ts';
import { authErrors } from '../errors.ts';
import type { DeviceTokens } from '../service/device-tokens.ts';
import type { Throttle } from '../service/throttle.ts';
import { deviceStore } from '../store/device-store.ts';
import { sessionStore } from '../store/session-store.ts';
import { webSessions } from './web-session.ts';

/**
 * Device tokens (README, "Device tokens"): refresh (rotation; a reused token revokes its family), logout of the
 * device, and a user's list and revocation of their device sign-ins. Exempt from the API gate: apps call them
 * with their own tokens, browsers with the session cookie.
 */
export function registerDeviceRoutes(
  ctx: PluginContext<AuthEnv>,
  deps: { deviceTokens: DeviceTokens; throttle: Throttle },
): void {
  const webSession = webSessions(ctx);

  /** The caller: an access token (`Authorization: Bearer`) or the session cookie; 401 otherwise. */
  const caller = async (req: Request, changes: boolean): Promise<SessionIdentity & { sid: string }> => {
    const bearer = /^Bearer ([!-~]{1,4096})$/.exec(req.get('authorization') ?? '')?.[1];
    if (bearer === undefined) return webSession.ownFromCookie(req, { changes });
    const verified = await ctx.sessions.verify(bearer);
    if (!verified.ok || verified.identity.sid === null || !isUserId(verified.identity.sub))
      throw authErrors.create('auth.session.missing');
    return { ...verified.identity, sid: verified.identity.sid };
  };
  const audit = (req: Request, kind: string, actor: string | null, payload: Record<string, unknown>) =>
    ctx.audit.writeLater({ kind, actor, requestId: req.gatehouse.id, ip: req.ip ?? null, payload });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/token/refresh',
    exempt: true,
    schema: { body: refreshSchema },
    handler: async (req, res, { body }) => {
      const attempt = await deps.throttle.reserve([['token:ip', req.ip ?? 'unknown']]);
      const result = await deps.deviceTokens.refresh(body.refreshToken);
      if (!result.ok) {
        if (result.reason === 'reused')
          audit(req, 'auth.device.refresh_reused', result.userId, { deviceSessionId: result.familyId });
        throw authErrors.create('auth.refresh.invalid');
      }
      await attempt.succeeded();
      res.setHeader('Cache-Control', 'no-store');
      res.json({
        accessToken: result.tokens.accessToken,
        accessTokenExpiresAt: result.tokens.accessTokenExpiresAt,
        refreshToken: result.tokens.refreshToken,
        tokenType: 'Bearer',
        deviceSessionId: result.tokens.familyId,
      });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/device/logout',
    exempt: true,
    handler: async (req, res) => {
      const identity = await caller(req, true);
      if (await sessionStore.revoke(ctx.db, identity.sid, 'device logout'))
        audit(req, 'auth.session.revoked', identity.sub, { reason: 'device logout' });
      res.status(204).end();
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/auth/devices',
    exempt: true,
    handler: async (req, res) => {
      const identity = await caller(req, false);
      const devices = await deviceStore.list(ctx.db, identity.sub, ctx.clock.now());
      res.json({ devices: devices.map((device) => ({ ...device, current: device.id === identity.sid })) });
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/auth/devices/:id',
    exempt: true,
    schema: { params: deviceParams },
    handler: async (req, res, { params }) => {
      const identity = await caller(req, true);
      if (!(await deviceStore.owns(ctx.db, identity.sub, params.id)))
        throw authErrors.create('auth.device.not_found');
      if (await sessionStore.revoke(ctx.db, params.id, 'device revoked by its user'))
        audit(req, 'auth.session.revoked', identity.sub, {
          reason: 'device revoked',
          deviceSessionId: params.id,
        });
      res.status(204).end();
    },
  });
}
