import { createHash } from 'node:crypto';
import { LOGIN_SCRIPT } from './login-script.ts';
import { CALLBACK_SCRIPT, PAGES_CSS } from './page-scripts.ts';

/** Where the login pages' files are served from; `:file` is one of `PAGE_FILES`. */
export const PAGE_ASSET_ROUTE = '/auth/assets/:file';

/** One file of the login pages, with what is needed to cache it for good. */
export interface PageAsset {
  readonly contentType: string;
  readonly body: Buffer;
  /** Short content hash: pages link `name?v=version`, and it is the file's ETag. */
  readonly version: string;
}

/** The files the pages use, by name; nothing else answers under the asset route. */
export type PageFile = 'login.js' | 'callback.js' | 'pages.css';

const JS = 'text/javascript; charset=utf-8';

/** Built once at registration; requests only write these buffers. */
export function loadPageAssets(): ReadonlyMap<PageFile, PageAsset> {
  return new Map<PageFile, PageAsset>([
    ['login.js', asset(JS, LOGIN_SCRIPT)],
    ['callback.js', asset(JS, CALLBACK_SCRIPT)],
    ['pages.css', asset('text/css; charset=utf-8', PAGES_CSS)],
  ]);
}

/** The link to a file, with its hash so a cached copy is never stale. */
export function assetHref(assets: ReadonlyMap<PageFile, PageAsset>, file: PageFile): string {
  const found = assets.get(file);
  if (!found) throw new Error(`login page file ${file} is not loaded`);
  return `/auth/assets/${file}?v=${found.version}`;
}

function asset(contentType: string, text: string): PageAsset {
  const body = Buffer.from(text);
  return { contentType, body, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}
