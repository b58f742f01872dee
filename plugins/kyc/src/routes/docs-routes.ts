import type { Request, Response } from 'express';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { coreErrors, type RouteRegistrar } from '../../../../gateway/src/plugin-api.ts';
import { buildOpenApiDocument } from '../openapi/document.ts';
import {
  ASSET_ROUTE,
  EXPLORER_CSP,
  explorerPage,
  loadExplorerAssets,
  type ExplorerAsset,
} from '../openapi/explorer.ts';

const compress = promisify(gzip);

/**
 * GET /docs-json (the OpenAPI document) and GET /docs (the explorer) with its files, at the fixed paths
 * tenants rely on (README, "API document and explorer"). All exempt from the API gate: the document is
 * public, and the explorer's calls authenticate with the `X-Api-Key` the user enters. Everything is built
 * once here; requests only write buffers.
 */
export function registerDocsRoutes(routes: RouteRegistrar): void {
  const document = Buffer.from(JSON.stringify(buildOpenApiDocument()));
  const assets = loadExplorerAssets();
  const page = explorerPage(assets);
  const gzipped = new Map<string, Promise<Buffer>>();

  routes.add({
    method: 'GET',
    path: '/docs-json',
    exempt: true,
    handler: (_req, res) => {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache');
      res.end(document);
    },
  });

  routes.add({
    method: 'GET',
    path: '/docs',
    exempt: true,
    handler: (_req, res) => {
      // Replaces the core's `default-src 'none'`, which would block the page's own scripts and styles.
      res.setHeader('Content-Security-Policy', EXPLORER_CSP);
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache');
      res.end(page);
    },
  });

  routes.add({
    method: 'GET',
    path: ASSET_ROUTE,
    exempt: true,
    handler: async (req, res) => {
      // A lookup by exact name in the allow-list: no path is ever built from the request.
      const wildcard = req.params['*'];
      const name = typeof wildcard === 'string' ? wildcard : '';
      const asset = assets.get(name);
      if (!asset) throw coreErrors.create('request.not_found');
      res.setHeader('Content-Type', asset.contentType);
      // The page links every file with its content hash (`?v=`), so a cached copy is never stale.
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      await send(req, res, asset, () => gzipOnce(gzipped, name, asset));
    },
  });
}

/** Text files go out gzipped to clients that take it: the Swagger UI bundle shrinks from 1.7 MB to ~0.5. */
async function send(
  req: Request,
  res: Response,
  asset: ExplorerAsset,
  gzipped: () => Promise<Buffer>,
): Promise<void> {
  if (!asset.contentType.startsWith('text/')) {
    res.end(asset.body);
    return;
  }
  res.vary('Accept-Encoding');
  if (req.acceptsEncodings('gzip', 'identity') !== 'gzip') {
    res.end(asset.body);
    return;
  }
  const body = await gzipped();
  res.setHeader('Content-Encoding', 'gzip');
  res.end(body);
}

/** Compressed on first request, not at boot: most gateways never serve the explorer. */
function gzipOnce(cache: Map<string, Promise<Buffer>>, name: string, asset: ExplorerAsset): Promise<Buffer> {
  let body = cache.get(name);
  if (!body) {
    body = compress(asset.body);
    cache.set(name, body);
  }
  return body;
}
