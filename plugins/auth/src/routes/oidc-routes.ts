import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { isDevelopment, type PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import type { AuthDeployment } from '../deployment/validate.ts';
import { exchangeSchema, startQuery, type ExchangeRequest } from '../domain/oidc-requests.ts';
import { safeReturnTo } from '../domain/return-to.ts';
import { authErrors } from '../errors.ts';
import type { DeviceTokens } from '../service/device-tokens.ts';
import { ExchangeError, type IdentityProvider, type IdTokenClaims } from '../service/identity-provider.ts';
import type { SignInResult } from '../service/oidc-sign-in.ts';
import type { Throttle } from '../service/throttle.ts';
import { oidcFlowStore } from '../store/oidc-flow-store.ts';
import { readSessionCookie, sessionCookieOptions } from './session-cookie.ts';
import { webSessions } from './web-session.ts';
import type { SignInMetrics } from '../service/sign-in-metrics.ts';

/** The browser's handle on its sign-in in progress; sent only to the exchange. */
const FLOW_COOKIE = 'gatehouse.oidc-flow';
const FLOW_COOKIE_PATH = '/api/v1/auth/oidc';
/** How long a browser has between start and exchange (the provider's login page included). */
const FLOW_SECONDS = 600;

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
const random = (): string => randomBytes(32).toString('base64url');

/**
 * Single sign-on (README, "Single sign-on"): `GET /auth/oidc/start` sends a browser to the provider with
 * state, nonce and PKCE kept server-side; `POST /api/v1/auth/oidc/exchange` trades the code the provider returned
 * for the ID token on the server, and answers a browser with the session cookie and an app with a token pair.
 */
export function registerOidcRoutes(
  ctx: PluginContext<AuthEnv>,
  deps: {
    deployment: AuthDeployment;
    provider: IdentityProvider;
    signIn: (claims: IdTokenClaims) => Promise<SignInResult>;
    deviceTokens: DeviceTokens;
    throttle: Throttle;
    signIns: SignInMetrics;
  },
): void {
  const webSession = webSessions(ctx);
  const callbackUrl = new URL('/auth/callback', ctx.core.APP_BASE_URL).href;
  const flowCookie = {
    ...sessionCookieOptions(ctx.core.APP_BASE_URL, isDevelopment(ctx.core), FLOW_SECONDS),
    path: FLOW_COOKIE_PATH,
  };

  ctx.routes.add({
    method: 'GET',
    path: '/auth/oidc/start',
    exempt: true,
    schema: { query: startQuery },
    handler: async (_req, res, { query }) => {
      const [state, nonce, codeVerifier, browser] = [random(), random(), random(), random()];
      const now = ctx.clock.now();
      await oidcFlowStore.create(ctx.db, {
        stateHash: sha256(state),
        browserHash: sha256(browser),
        nonce,
        codeVerifier,
        returnTo: safeReturnTo(query.returnTo),
        now,
        expiresAt: new Date(now.getTime() + FLOW_SECONDS * 1000),
      });
      const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
      res.cookie(FLOW_COOKIE, browser, flowCookie);
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(
        302,
        deps.provider.authorizeUrl({ redirectUri: callbackUrl, state, nonce, codeChallenge }).href,
      );
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/oidc/exchange',
    exempt: true,
    schema: { body: exchangeSchema },
    handler: async (req, res, { body }) => {
      const attempt = await deps.throttle.reserve([['token:ip', req.ip ?? 'unknown']]);
      const signedIn = await exchangeAndSignIn(req, body).catch(async (err: unknown) => {
        // A refusal counts against the address; a provider that is down does not.
        if (err instanceof ExchangeError && err.failure === 'provider_unavailable') await attempt.abandoned();
        throw err;
      });
      await attempt.succeeded();
      const { user, returnTo } = signedIn;
      const profile = { id: user.id, email: user.email, roles: user.roles };
      if ('device' in body) {
        const tokens = await deps.deviceTokens.issue(
          user,
          { id: body.device.id, name: body.device.name ?? null, platform: body.device.platform ?? null },
          { userAgent: req.get('user-agent') ?? null, ip: req.ip ?? null },
        );
        res.setHeader('Cache-Control', 'no-store');
        res.json({
          accessToken: tokens.accessToken,
          accessTokenExpiresAt: tokens.accessTokenExpiresAt,
          refreshToken: tokens.refreshToken,
          tokenType: 'Bearer',
          deviceSessionId: tokens.familyId,
          user: profile,
        });
        return;
      }
      const session = await webSession.start(req, res, user);
      res.clearCookie(FLOW_COOKIE, { ...flowCookie, maxAge: undefined });
      res.json({ user: profile, expiresAt: session.expiresAt, returnTo });
    },
  });

  /** The code traded and the account found, or a refusal thrown (and audited). */
  async function exchangeAndSignIn(req: Request, body: ExchangeRequest) {
    const { checks, returnTo } = await exchangeChecks(req, body);
    const claims = await deps.provider.exchange(checks).catch((err: unknown) => {
      if (!(err instanceof ExchangeError)) throw err;
      audit(req, 'auth.oidc.refused', null, { reason: err.failure, device: 'device' in body });
      deps.signIns.record('oidc', 'failure');
      ctx.logger.warn(
        { requestId: req.gatehouse.id, failure: err.failure, reason: err.reason },
        'oidc exchange failed',
      );
      throw Object.assign(authErrors.create(`auth.oidc.${err.failure}`), { cause: err });
    });
    const result = await deps.signIn(claims);
    if (!result.ok) {
      audit(req, 'auth.oidc.refused', result.userId, { reason: result.reason, issuer: claims.issuer });
      deps.signIns.record('oidc', 'failure');
      throw authErrors.create(
        result.reason === 'account_disabled' ? 'auth.account.disabled' : `auth.oidc.${result.reason}`,
      );
    }
    if (result.created) audit(req, 'auth.oidc.account_created', result.user.id, { issuer: claims.issuer });
    if (result.linked) audit(req, 'auth.oidc.linked', result.user.id, { issuer: claims.issuer });
    if (result.bootstrapAdmin) audit(req, 'auth.bootstrap_admin', result.user.id, { issuer: claims.issuer });
    audit(req, 'auth.login.success', result.user.id, {
      method: 'oidc',
      issuer: claims.issuer,
      device: 'device' in body,
    });
    deps.signIns.record('oidc', 'success');
    return { user: result.user, returnTo };
  }

  /** What the exchange must check: from the browser's flow row, or from what the app sent. */
  async function exchangeChecks(req: Request, body: ExchangeRequest) {
    const query = (extra: Record<string, string>) =>
      new URLSearchParams({ code: body.code, ...(body.iss ? { iss: body.iss } : {}), ...extra });
    if ('device' in body) {
      if (!allowedAppCallback(body.redirectUri, ctx.config.OIDC_APP_SCHEMES))
        throw authErrors.create('auth.oidc.redirect_uri_not_allowed');
      const callback = new URL(body.redirectUri);
      callback.search = query({}).toString();
      const checks = {
        callbackUrl: callback,
        codeVerifier: body.codeVerifier,
        expectedState: null,
        expectedNonce: body.nonce,
      };
      return { checks, returnTo: null };
    }
    const browser = readSessionCookie(req, FLOW_COOKIE);
    const flow = browser
      ? await oidcFlowStore.take(ctx.db, sha256(body.state), sha256(browser), ctx.clock.now())
      : null;
    if (!flow) throw authErrors.create('auth.oidc.state_invalid');
    const callback = new URL(callbackUrl);
    callback.search = query({ state: body.state }).toString();
    const checks = {
      callbackUrl: callback,
      codeVerifier: flow.codeVerifier,
      expectedState: body.state,
      expectedNonce: flow.nonce,
    };
    return { checks, returnTo: flow.returnTo };
  }

  function audit(req: Request, kind: string, actor: string | null, payload: Record<string, unknown>): void {
    ctx.audit.writeLater({ kind, actor, requestId: req.gatehouse.id, ip: req.ip ?? null, payload });
  }
}

/** An app's callback: `<scheme>://auth/callback` for one of OIDC_APP_SCHEMES, nothing more. */
function allowedAppCallback(redirectUri: string, schemes: readonly string[]): boolean {
  return schemes.some((scheme) => redirectUri === `${scheme}://auth/callback`);
}
