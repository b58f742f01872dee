/**
 * A real browser for the suites: Debian's Chromium (package `chromium`, installed by .ci/run because
 * `npx playwright install` cannot download here), driven by playwright-core. Pages run under their own
 * Content-Security-Policy (never bypassed), and every request a page makes is recorded, so a test can assert
 * which hosts the browser called. Requests to anything but loopback are refused before they leave the
 * machine: a suite never asks anything of the network.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { requireTool } from './tools.ts';

/**
 * How long a page may take to load or react on a loaded 2-core machine. Every wait is on a condition; this
 * only bounds a failure.
 */
export const PAGE_WAIT_MS = 60_000;

/** How long Chromium may take to start (it starts slowly when other suites hold both cores). */
export const LAUNCH_WAIT_MS = 120_000;

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-extensions',
  '--no-first-run',
];

/** Chromium's path, or null (the suite skips locally; in CI a missing browser fails, see tools.ts). */
export function findChromium(): Promise<string | null> {
  return requireTool('chromium', 'chromium');
}

/**
 * Starts Chromium. A launch that fails (a start that timed out under load, a crash at start) is tried once
 * more before the error is thrown: the second start finds the binary and its libraries in the page cache.
 */
export async function launchChromium(executablePath: string): Promise<Browser> {
  const launch = () => chromium.launch({ executablePath, timeout: LAUNCH_WAIT_MS, args: ARGS });
  try {
    return await launch();
  } catch {
    return launch();
  }
}

/** One request a page made. */
export interface RecordedRequest {
  method: string;
  url: string;
}

/** A page in its own context (own cookies), with what it did. */
export interface RecordedPage {
  page: Page;
  context: BrowserContext;
  /** Every request, in order, including refused ones. */
  requests: RecordedRequest[];
  /** Console errors, uncaught exceptions, CSP violations and failed loads. */
  problems: string[];
  /** The hosts (`host:port`) the page sent requests to. */
  hosts(): string[];
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A fresh page in its own browser context: no cookies shared with other pages, generous timeouts, requests
 * recorded, anything but loopback refused, and problems (console errors, CSP violations) collected.
 */
export async function openPage(browser: Browser): Promise<RecordedPage> {
  const context = await browser.newContext();
  context.setDefaultTimeout(PAGE_WAIT_MS);
  context.setDefaultNavigationTimeout(PAGE_WAIT_MS);
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    return LOOPBACK.has(url.hostname) ? route.continue() : route.abort('blockedbyclient');
  });
  // Runs through the DevTools protocol, so it records violations without being subject to the CSP.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  const page = await context.newPage();
  page.on('request', (request) => requests.push({ method: request.method(), url: request.url() }));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  return {
    page,
    context,
    requests,
    problems,
    hosts: () => [...new Set(requests.map((request) => new URL(request.url).host))],
    close: () => context.close(),
  };
}

/** The paths a page POSTed to, in order. */
export function postedPaths(recorded: RecordedPage): string[] {
  return recorded.requests.filter((r) => r.method === 'POST').map((r) => new URL(r.url).pathname);
}

/**
 * Waits until the page lands on `returnTo` (a test route that shows `GET /api/v1/auth/session`) and reads the
 * signed-in account's email from it.
 */
export async function signedInAs(recorded: RecordedPage, returnTo: string): Promise<string | undefined> {
  await recorded.page.waitForURL((url) => url.pathname === returnTo);
  const body = JSON.parse((await recorded.page.locator('body').textContent()) ?? '{}') as {
    identity?: { email?: string };
  };
  return body.identity?.email;
}
