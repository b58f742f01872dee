import type { Request, Response } from 'express';
import { coreErrors, type PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import type { AuthDeployment } from '../deployment/validate.ts';
import { safeReturnTo } from '../domain/return-to.ts';
import {
  CALLBACK_PAGE_CSP,
  LOGIN_PAGE_CSP,
  loginPageView,
  renderCallbackPage,
  renderLoginPage,
} from './login-page.ts';
import { loadPageAssets, PAGE_ASSET_ROUTE, type PageFile } from './page-assets.ts';

/**
 * The browser pages of sign-in (README, "Login pages"): GET /login, GET /auth/callback and their files. Exempt
 * from the API gate: a browser opens them before it has any session, and they hold no data. Each page sets its
 * own Content-Security-Policy in place of the core's `default-src 'none'`, which would block its script and
 * stylesheet.
 */
export function registerPageRoutes(ctx: PluginContext<AuthEnv>, deployment: AuthDeployment): void {
  const assets = loadPageAssets();
  const callbackPage = Buffer.from(renderCallbackPage(assets));

  ctx.routes.add({
    method: 'GET',
    path: '/login',
    exempt: true,
    handler: (req, res) => {
      const view = loginPageView(deployment, { local: queryValue(req, 'local') === '1' });
      const html = renderLoginPage(view, safeReturnTo(queryValue(req, 'returnTo')), assets);
      sendPage(res, LOGIN_PAGE_CSP, html);
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/auth/callback',
    exempt: true,
    handler: (_req, res) => sendPage(res, CALLBACK_PAGE_CSP, callbackPage),
  });

  ctx.routes.add({
    method: 'GET',
    path: PAGE_ASSET_ROUTE,
    exempt: true,
    handler: (req, res) => {
      // A lookup by exact name: no path is ever built from the request.
      const asset = assets.get(req.params['file'] as PageFile);
      if (!asset) throw coreErrors.create('request.not_found');
      const etag = `"${asset.version}"`;
      // Pages link every file with its hash (`?v=`), so a cached copy never goes stale.
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.setHeader('ETag', etag);
      if (req.headers['if-none-match'] === etag) {
        res.status(304).end();
        return;
      }
      res.setHeader('Content-Type', asset.contentType);
      res.end(asset.body);
    },
  });
}

/** A query parameter given once; repeated or absent parameters count as absent. */
function queryValue(req: Request, name: string): string | undefined {
  const value: unknown = req.query[name];
  return typeof value === 'string' ? value : undefined;
}

function sendPage(res: Response, csp: string, html: string | Buffer): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  // The login page reflects its query (returnTo, local=1); the callback URL carries a one-time code.
  res.setHeader('Cache-Control', 'no-store');
  res.end(html);
}
