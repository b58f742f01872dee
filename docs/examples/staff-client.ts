/**
 * A typed client of the staff API for a dashboard's server: openapi-fetch over the types openapi-typescript
 * generated from the API document (`staff-api.d.ts`, `npm run openapi:types`), with a `fetch` that signs
 * every request with both gate layers as `dashboard-client.ts` does (docs/api-auth-gate.md). Paths,
 * parameters, bodies, answers and problem+json errors are all typed by the document. This file is
 * type-checked by `npm run typecheck` and run against a gateway in enforce mode by test/staff-client.test.ts.
 *
 *   const staff = createStaffClient('http://gatehouse:8080', { internalSecret, sessionToken });
 *   const { data, error } = await staff.GET('/api/v1/messages/feedback', { params: { query: { limit: 50 } } });
 */
import createClient, { type Client } from 'openapi-fetch';
import { type GatehouseCredentials, internalSignature } from './dashboard-client.ts';
import type { paths } from './staff-api.d.ts';

export type StaffApiClient = Client<paths>;

/** A client for one signed-in staff member: `sessionToken` is their Auth.js session token. */
export function createStaffClient(baseUrl: string, credentials: GatehouseCredentials): StaffApiClient {
  return createClient<paths>({ baseUrl, fetch: signedFetch(credentials) });
}

/**
 * openapi-fetch hands its `fetch` a finished Request: the signature covers its method, its path with the
 * query exactly as it goes on the wire, and the body's exact text.
 */
export function signedFetch(credentials: GatehouseCredentials): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = request.body === null ? '' : await request.text();
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.set(
      'x-internal-signature',
      internalSignature(credentials.internalSecret, request.method, `${url.pathname}${url.search}`, body),
    );
    headers.set('x-forwarded-session', credentials.sessionToken);
    return fetch(url, {
      method: request.method,
      headers,
      body: request.body === null ? undefined : body,
      signal: request.signal,
    });
  };
}
