/**
 * `npm run bench:oidc` (bench/README.md): single sign-on against a real OpenID Provider (oidc-provider) on
 * loopback, with the gateway as its own process on the bench PostgreSQL:
 *  - the code exchange (`POST /api/v1/auth/oidc/exchange`, browser flow): throughput and p50/p99 at 10 concurrent
 *    exchanges, against the baseline of the same token request made straight to the provider by openid-client in
 *    this process (what the provider and the ID token validation cost without the gateway);
 *  - refresh (`POST /api/v1/auth/token/refresh`): p50/p99 with 50 concurrent clients, each refreshing its own
 *    token chain one request at a time (as apps must), against `GET /health` at the same concurrency.
 * Codes are made before the timed part (the provider's login pages are not what is measured). Output: JSON on
 * stdout. Options (env): BENCH_EXCHANGES (default 400), BENCH_SECONDS (refresh window, default 10).
 */
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as oidc from 'openid-client';
import { roundToTenth, summarise } from './lib/latency.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { freePort, startProcess } from './lib/processes.ts';
import {
  appAuthorization,
  startTestIdp,
  type AppAuthorization,
  type TestIdp,
} from '../test/support/oidc-idp.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const EXCHANGES = Number(process.env.BENCH_EXCHANGES ?? 400);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const EXCHANGE_CONCURRENCY = 10;
/** Codes made, then exchanged, at a time. */
const BATCH = 50;
const REFRESH_CLIENTS = 50;
const APP_SCHEME = 'com.example.bench';
const APP_CALLBACK = `${APP_SCHEME}://auth/callback`;

/**
 * Exchanges `count` codes with `concurrency` in flight, `work` timing one each; codes are made in batches just
 * before their use (a code lives 60 s, and making them is slower than using them). Only `work` is timed.
 */
async function timedExchanges(
  idp: TestIdp,
  count: number,
  concurrency: number,
  work: (code: AppAuthorization) => Promise<void>,
) {
  const samples: number[] = [];
  let busyMs = 0;
  for (let done = 0; done < count; done += BATCH) {
    const batch = await prepareCodes(idp, Math.min(BATCH, count - done));
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < batch.length) {
          const code = batch[next++] as AppAuthorization;
          const t0 = performance.now();
          await work(code);
          samples.push(performance.now() - t0);
        }
      }),
    );
    busyMs += performance.now() - started;
  }
  return { ...summarise(samples), perSecond: roundToTenth(samples.length / (busyMs / 1000)) };
}

/** Codes for the app callback, each signed in at the provider by one of 50 users. */
async function prepareCodes(idp: TestIdp, count: number): Promise<AppAuthorization[]> {
  const codes: AppAuthorization[] = [];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (codes.length < count)
        codes.push(await appAuthorization(idp, `user-${codes.length % 50}`, APP_CALLBACK));
    }),
  );
  return codes.slice(0, count);
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res;
}

async function main(): Promise<void> {
  const idp = await startTestIdp({
    clients: [
      {
        client_id: 'gatehouse',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        redirect_uris: ['http://127.0.0.1:3000/auth/callback', APP_CALLBACK],
      },
    ],
  });
  for (let i = 0; i < 50; i++)
    idp.accounts.set(`user-${i}`, { email: `user-${i}@example.com`, email_verified: true });
  const postgres = await startBenchPostgres();
  const port = await freePort();
  const gateway = await startProcess({
    name: 'gateway',
    args: [path.join(root, 'app/cli.ts'), 'serve'],
    env: {
      APP_ENV: 'production',
      API_AUTH_MODE: 'enforce',
      AUTH_MODE: 'oidc',
      AUTH_SECRET: 'bench-auth-secret-0123456789abcdef',
      INTERNAL_API_SECRET: 'bench-internal-secret-0123456789abcdef',
      APP_BASE_URL: 'http://127.0.0.1:3000',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: 'gatehouse',
      OIDC_APP_SCHEMES: APP_SCHEME,
      TOKEN_FREE_FAILURES_PER_IP: '100000',
      // The refresh clients may say which address they are (X-Forwarded-For from loopback), as apps behind a
      // load balancer are: one address for all, or one each.
      TRUST_PROXY: 'loopback',
      GATEWAY_PLUGINS: 'auth',
      DATABASE_URL: postgres.url,
      HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    },
    logFile: path.join(root, 'bench/out/gateway-oidc.log'),
    port,
    readyPath: '/health',
  });
  try {
    const exchangeUrl = `${gateway.url}/api/v1/auth/oidc/exchange`;
    const exchangeBody = (prepared: AppAuthorization, device: string) => ({
      ...prepared,
      device: { id: device },
    });
    // Warm-up: the first exchanges fetch the provider's keys and fill the gateway's caches.
    for (const [i, prepared] of (await prepareCodes(idp, 20)).entries())
      await postJson(exchangeUrl, exchangeBody(prepared, `warm-${i}`));

    const config = await oidc.discovery(new URL(idp.issuer), 'gatehouse', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const direct = await timedExchanges(idp, EXCHANGES, EXCHANGE_CONCURRENCY, async (p) => {
      const callback = new URL(APP_CALLBACK);
      callback.search = new URLSearchParams({ code: p.code, iss: p.iss }).toString();
      await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: p.codeVerifier,
        expectedNonce: p.nonce,
        idTokenExpected: true,
      });
    });
    let device = 0;
    const tokens: string[] = [];
    const exchange = await timedExchanges(idp, EXCHANGES, EXCHANGE_CONCURRENCY, async (p) => {
      const res = await postJson(exchangeUrl, exchangeBody(p, `device-${device++}`));
      tokens.push(((await res.json()) as { refreshToken: string }).refreshToken);
    });

    const refreshUrl = `${gateway.url}/api/v1/auth/token/refresh`;
    const refresh = await refreshLoad(refreshUrl, tokens.slice(0, REFRESH_CLIENTS), false);
    const refreshEachAddress = await refreshLoad(
      refreshUrl,
      tokens.slice(REFRESH_CLIENTS, 2 * REFRESH_CLIENTS),
      true,
    );
    const health = await closedLoop(REFRESH_CLIENTS, async () => {
      const res = await fetch(`${gateway.url}/health`);
      await res.arrayBuffer();
    });
    process.stdout.write(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
          settings: {
            exchanges: EXCHANGES,
            exchangeConcurrency: EXCHANGE_CONCURRENCY,
            refreshClients: REFRESH_CLIENTS,
            seconds: SECONDS,
          },
          exchange: {
            gateway: exchange,
            providerDirect: direct,
            p99Ratio: roundToTenth(exchange.p99Ms / direct.p99Ms),
          },
          refresh: {
            oneAddress: refresh,
            addressEach: refreshEachAddress,
            health,
            p99Ratio: roundToTenth(refresh.p99Ms / health.p99Ms),
            p99RatioAddressEach: roundToTenth(refreshEachAddress.p99Ms / health.p99Ms),
          },
        },
        null,
        2,
      ) + '\n',
    );
  } finally {
    await gateway.stop();
    await postgres.stop();
    await idp.close();
  }
}

/** `clients` loops calling `work` back to back for SECONDS; latencies and the rate. */
async function closedLoop(clients: number, work: (client: number) => Promise<void>) {
  const samples: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await work(client);
        samples.push(performance.now() - t0);
      }
    }),
  );
  return { ...summarise(samples), perSecond: roundToTenth(samples.length / SECONDS) };
}

/**
 * Each client refreshes its own chain: the newest refresh token each time; from one address for all, or from an
 * address each (`X-Forwarded-For`: the per-address limit's counter is one row per address).
 */
function refreshLoad(url: string, firstTokens: readonly string[], addressEach: boolean) {
  const chains = [...firstTokens];
  return closedLoop(chains.length, async (client) => {
    const headers: Record<string, string> = addressEach ? { 'x-forwarded-for': `10.0.${client}.1` } : {};
    const res = await postJson(url, { refreshToken: chains[client] }, headers);
    chains[client] = ((await res.json()) as { refreshToken: string }).refreshToken;
  });
}

await main();
