import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The interactive explorer at GET /docs: Swagger UI from the `swagger-ui-dist` npm package, served by the
 * gateway itself (no CDN, so the page works offline and under a CSP that allows only this origin).
 */

/** Where the page's files are served from; `*` is the file name. */
export const ASSET_ROUTE = '/docs/assets/*';

/**
 * The page's Content-Security-Policy, replacing the core's `default-src 'none'` on /docs only. Scripts
 * and styles come from this origin only: no inline script (the initializer is a file), no `eval`.
 * `img-src data:` because swagger-ui.css draws its icons as data: SVGs; `connect-src 'self'` lets the
 * page load /docs-json and send "Try it out" requests to the same gateway. `form-action 'none'`: the
 * Authorize dialog is a form whose submit Swagger UI handles in script, and nothing on the page posts a
 * form anywhere. `frame-ancestors 'none'` keeps the core's anti-framing rule.
 */
export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Starts Swagger UI. Kept as a served file rather than an inline <script> so the CSP needs no
 * 'unsafe-inline' or hash. The URLs are relative to the page so the explorer still works when the gateway
 * is mounted under a path prefix. `validatorUrl: null`: Swagger UI would otherwise fetch a badge from
 * validator.swagger.io.
 */
const INITIALIZER = `'use strict';
window.ui = SwaggerUIBundle({
  url: new URL('docs-json', document.baseURI).href,
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  displayRequestDuration: true,
});
`;

export interface ExplorerAsset {
  readonly contentType: string;
  readonly body: Buffer;
  /** Short content hash: the page links `name?v=hash`, so the file can be cached as immutable. */
  readonly version: string;
}

/** `swagger-ui-dist` files the page uses; nothing else in the package directory is reachable. */
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/**
 * Reads the explorer's files once. Called at registration, so a missing or broken `swagger-ui-dist`
 * stops the boot with the file it could not read instead of failing the first visitor.
 */
export function loadExplorerAssets(): ReadonlyMap<string, ExplorerAsset> {
  const packageDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, ExplorerAsset>();
  for (const [name, contentType] of Object.entries(PACKAGE_FILES)) {
    assets.set(name, asset(contentType, readFileSync(join(packageDir, name))));
  }
  assets.set('init.js', asset('text/javascript; charset=utf-8', Buffer.from(INITIALIZER)));
  return assets;
}

function asset(contentType: string, body: Buffer): ExplorerAsset {
  return { contentType, body, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}

/** The /docs page: markup only, every script and style a file under /docs/assets/. */
export function explorerPage(assets: ReadonlyMap<string, ExplorerAsset>): Buffer {
  const href = (name: string) => {
    const found = assets.get(name);
    if (!found) throw new Error(`explorer asset ${name} is not loaded`);
    return `docs/assets/${name}?v=${found.version}`;
  };
  return Buffer.from(`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Gatehouse KYC API</title>
    <link rel="stylesheet" href="${href('swagger-ui.css')}">
    <link rel="stylesheet" href="${href('index.css')}">
    <link rel="icon" type="image/png" sizes="32x32" href="${href('favicon-32x32.png')}">
    <link rel="icon" type="image/png" sizes="16x16" href="${href('favicon-16x16.png')}">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${href('swagger-ui-bundle.js')}"></script>
    <script src="${href('init.js')}"></script>
  </body>
</html>
`);
}
