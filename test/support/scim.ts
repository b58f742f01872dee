import type { Queryable } from '../../gateway/src/plugin-api.ts';
import { generateScimToken } from '../../plugins/auth/src/domain/scim/token.ts';
import { scimTokenStore } from '../../plugins/auth/src/store/scim-token-store.ts';

export const SCIM_BASE = '/api/v1/scim/v2';

/** A SCIM bearer token written straight into the store, as `gatehouse scim token create` makes one. */
export async function createScimToken(db: Queryable, name = 'test'): Promise<{ id: string; token: string }> {
  const made = generateScimToken();
  const row = await scimTokenStore.insert(db, { name, ...made }, new Date());
  return { id: row.id, token: made.token };
}

export interface ScimAnswer {
  status: number;
  contentType: string | null;
  body: Record<string, unknown> | null;
  headers: Headers;
}

/** Calls the SCIM API of a gateway the way identity providers do: `application/scim+json`, a bearer token. */
export function scimClient(baseUrl: string, token: string | undefined) {
  return async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ScimAnswer> => {
    const res = await fetch(`${baseUrl}${SCIM_BASE}${path}`, {
      method,
      headers: {
        ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/scim+json' } : {}),
        accept: 'application/scim+json',
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>),
      headers: res.headers,
    };
  };
}

export type ScimClient = ReturnType<typeof scimClient>;
