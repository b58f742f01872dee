import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { loadPageAssets } from './page-assets.ts';

describe('the login pages’ scripts', () => {
  // The scripts are text in template literals: a slip (a stray quote, a brace) would only show in a browser.
  it.each(['login.js', 'callback.js'] as const)('%s is valid JavaScript', (file) => {
    const body = loadPageAssets().get(file)?.body.toString('utf8') ?? '';
    expect(body.startsWith("'use strict';")).toBe(true);
    expect(() => new Script(body, { filename: file })).not.toThrow();
  });
});
