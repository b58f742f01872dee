/**
 * How a dashboard's server calls the Gatehouse API (docs/api-auth-gate.md): every request carries
 *
 *   X-Internal-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(INTERNAL_API_SECRET, "<t>.<METHOD>.<path with query>.<raw body>")>
 *   X-Forwarded-Session:  <the user's Auth.js session token, i.e. the session cookie's value>
 *
 * Sign the exact bytes you send, after serialising the body. This file is type-checked and run by the
 * test suite against a gateway in enforce mode (test/dashboard-client.test.ts).
 */
import { createHmac } from 'node:crypto';

export interface GatehouseCredentials {
  /** INTERNAL_API_SECRET, shared by the dashboard's server and the gateway. Never sent to browsers. */
  internalSecret: string;
  /** The signed-in user's Auth.js session token (the `authjs.session-token` cookie's value). */
  sessionToken: string;
}

/**
 * The `X-Internal-Signature` value (gate layer 1) for one request: `body` is the exact text sent ('' for
 * none), `pathWithQuery` the request target as sent (`/api/v1/leads/v2?status=captured`).
 */
export function internalSignature(
  internalSecret: string,
  method: string,
  pathWithQuery: string,
  body: string,
  t = Math.floor(Date.now() / 1000),
): string {
  const v1 = createHmac('sha256', internalSecret)
    .update(`${t}.${method.toUpperCase()}.${pathWithQuery}.${body}`)
    .digest('hex');
  return `t=${t},v1=${v1}`;
}

export async function gatehouseFetch(
  baseUrl: string,
  pathWithQuery: string,
  init: { method?: string; json?: unknown; headers?: Record<string, string> },
  credentials: GatehouseCredentials,
): Promise<Response> {
  const method = (init.method ?? 'GET').toUpperCase();
  const body = init.json === undefined ? '' : JSON.stringify(init.json);
  return fetch(new URL(pathWithQuery, baseUrl), {
    method,
    headers: {
      ...init.headers,
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      'x-internal-signature': internalSignature(credentials.internalSecret, method, pathWithQuery, body),
      'x-forwarded-session': credentials.sessionToken,
    },
    body: init.json === undefined ? undefined : body,
  });
}
