/**
 * The gateway the fuzz suite attacks: every built-in plugin, an upstream, real PostgreSQL, in `enforce` or
 * `warn`; every outbound call (send API, KYC webhooks, the upstream) goes to a sink on loopback that
 * answers at once, so background work after a success finishes quickly and never reaches the network.
 */
import { startGateway, type RunningGateway } from '../../gateway/src/gateway.ts';
import { BUILTIN_PLUGINS } from '../../app/builtin-plugins.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { gateEnv } from '../support/gate.ts';
import { APP_ORIGIN, createCaller, type Caller } from './credentials.ts';
import { httpClient, type HttpClient, type WireResponse } from './raw-http.ts';
import { routeHints } from './route-hints.ts';
import { asOpenApiDocument, documentCandidates, fuzzTargets, type FuzzTarget } from './route-targets.ts';
import type { RouteHint } from './route-hints.ts';
import { startTestIdp, type TestIdp } from '../support/oidc-idp.ts';
import { seedData } from './seed-data.ts';
import { startSink, type Sink } from './sink.ts';
import { serverLog, type ServerLog } from './server-log.ts';
import type { FuzzSettings } from './settings.ts';

const WEBHOOK_VERIFY_TOKEN = 'fuzz-verify-token';
/** A gated upstream, so the core's proxy route is fuzzed like any other. */
export const UPSTREAM_PREFIX = '/fuzz-upstream';

export interface FuzzGateway {
  mode: 'enforce' | 'warn';
  gateway: RunningGateway;
  db: TestDatabase;
  client: HttpClient;
  caller: Caller;
  /** Adds the mode's credentials: all of them in enforce, none (or an outside dashboard's session) in warn. */
  authorise: Caller['withCredentials'];
  targets: FuzzTarget[];
  hints: Readonly<Record<string, RouteHint>>;
  /** Ids of rows that exist (the caller's own excluded), for path parameters and id fields. */
  ids: readonly string[];
  /** The same, by table (tables with a uuid `id` column). */
  rowIds: Readonly<Record<string, readonly string[]>>;
  sinkUrl: string;
  log: ServerLog;
  close(): Promise<void>;
}

export async function startFuzzGateway(
  mode: 'enforce' | 'warn',
  settings: FuzzSettings,
): Promise<FuzzGateway> {
  const db = await createTestDatabase();
  const sink = await startSink();
  // Single sign-on on, so its routes are fuzzed too: the exchange reaches a real provider, which refuses codes.
  const idp = await startTestIdp();
  const log = serverLog();
  let gateway: RunningGateway | undefined;
  try {
    gateway = await startGateway({
      env: fuzzEnv(mode, db.url, sink, idp),
      available: BUILTIN_PLUGINS,
      logDestination: log.destination,
    });
    const client = httpClient(gateway.url, settings.requestTimeoutMs);
    const caller = await createCaller(db.pool);
    const seeded = await seedData({ client, caller, pool: db.pool, sinkUrl: sink.url });
    const documents = await openApiDocuments(client, caller, gateway);
    // The caller's own user, tenant and key are never aimed at: a fuzzed revoke would end the suite's access.
    const fuzzable = (id: string) => id !== caller.userId && !seeded.protectedIds.includes(id);
    const running = gateway;
    return {
      mode,
      gateway,
      db,
      client,
      caller,
      authorise: mode === 'enforce' ? caller.withCredentials : caller.withoutCredentials,
      targets: fuzzTargets(gateway.routes, documents),
      hints: routeHints({ webhookVerifyToken: WEBHOOK_VERIFY_TOKEN }),
      ids: seeded.ids.filter(fuzzable),
      rowIds: Object.fromEntries(
        Object.entries(seeded.rowIds).map(([table, ids]) => [table, ids.filter(fuzzable)]),
      ),
      sinkUrl: sink.url,
      log,
      async close() {
        client.close();
        await running.close();
        await sink.close();
        await idp.close();
        await db.drop();
      },
    };
  } catch (err) {
    await gateway?.close();
    await sink.close();
    await idp.close();
    await db.drop();
    throw err;
  }
}

function fuzzEnv(
  mode: 'enforce' | 'warn',
  databaseUrl: string,
  sink: Sink,
  idp: TestIdp,
): Record<string, string> {
  return {
    APP_ENV: 'test',
    ...gateEnv(mode),
    APP_BASE_URL: APP_ORIGIN,
    AUTH_MODE: 'local+oidc',
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: 'gatehouse',
    OIDC_APP_SCHEMES: 'com.example.app',
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    // Errors and warnings only: they name the cause of a 5xx by request id (server-log.ts).
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_MAX: '6',
    GATEWAY_PLUGINS: 'auth,kyc,messaging,realtime',
    GATEWAY_UPSTREAMS: JSON.stringify([{ prefix: UPSTREAM_PREFIX, target: sink.url }]),
    // The limiters would turn most requests into 429s: high, so requests reach the handlers.
    LOGIN_FREE_FAILURES_PER_ACCOUNT: '1000',
    LOGIN_FREE_FAILURES_PER_IP: '100000',
    REGISTER_FREE_ATTEMPTS_PER_IP: '100000',
    TOKEN_FREE_FAILURES_PER_IP: '100000',
    KYC_RATE_LIMIT: '10000000',
    // Background work after a success: at once, one attempt each, against the sink.
    KYC_SANDBOX_DELAY_MS: '0',
    KYC_WORKER_INTERVAL_MS: '50',
    KYC_WEBHOOK_MAX_ATTEMPTS: '1',
    KYC_WEBHOOK_TIMEOUT_MS: '1000',
    // The sink is on loopback, which webhook targets may only be with this setting.
    KYC_WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_VERIFY_TOKEN,
    MESSAGING_API_BASE_URL: sink.url,
    MESSAGING_API_TOKEN: 'fuzz-send-token',
    MESSAGING_SEND_MAX_ATTEMPTS: '1',
    MESSAGING_MAX_ATTEMPTS: '1',
    MESSAGING_SEND_TIMEOUT_MS: '1000',
    MESSAGING_SEND_LEASE_MS: '5000',
  };
}

/** Every static GET route whose answer is an OpenAPI document (the kyc plugin's `/docs-json` today). */
async function openApiDocuments(client: HttpClient, caller: Caller, gateway: RunningGateway) {
  const documents = [];
  for (const path of documentCandidates(gateway.routes)) {
    const res: WireResponse = await client.send(
      await caller.withCredentials({ method: 'GET', path, headers: {} }),
    );
    const document = res.status === 200 ? asOpenApiDocument(res.text) : undefined;
    if (document) documents.push(document);
  }
  return documents;
}
