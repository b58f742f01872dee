/**
 * Calling the messaging plugin's staff API as the dashboard does: both gate layers on every request (the
 * HMAC over the exact bytes sent, and a staff session token an external dashboard minted with `@auth/core`
 * for the given `sub` and roles), against a gateway running auth and messaging in `enforce` mode.
 */
import { SIGNATURE_HEADER } from '../../gateway/src/gate/hmac.ts';
import { SESSION_HEADER } from '../../gateway/src/gate/gate.ts';
import { gateEnv, sign } from './gate.ts';
import { messagingEnv } from './messaging.ts';
import { dashboardToken } from './realtime.ts';

/** A staff member as the session token names them. */
export interface Staff {
  sub: string;
  roles: readonly string[];
}

export const ADMIN: Staff = { sub: 'admin-1', roles: ['messaging:admin'] };

/** An agent: no admin role; what they see comes from their cluster memberships. */
export function agent(sub: string): Staff {
  return { sub, roles: ['agent'] };
}

/** The env of a gateway serving the staff API in enforce mode, replies going to the stand-in provider. */
export function staffApiEnv(
  provider: { url: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return { ...messagingEnv(provider), ...gateEnv('enforce'), ...extra };
}

export interface StaffRequest {
  /** A JSON body (serialised once; the signature covers exactly these bytes). */
  json?: unknown;
  /** A raw body sent as is (with `content-type: application/json` unless `headers` say otherwise). */
  raw?: string;
  headers?: Record<string, string>;
}

/** For a gateway on a moved clock: sign at its time, and a session that outlives the moves. */
export interface StaffTiming {
  clock?: { nowMs(): number };
  sessionMaxAgeSeconds?: number;
}

/** One signed request to `path` (with its query) as `staff`. */
export async function staffFetch(
  gateway: { url: string },
  staff: Staff,
  method: string,
  path: string,
  request: StaffRequest = {},
  timing: StaffTiming = {},
): Promise<Response> {
  const body = request.raw ?? (request.json === undefined ? undefined : JSON.stringify(request.json));
  const headers: Record<string, string> = {
    [SIGNATURE_HEADER]: sign({
      method,
      url: path,
      body,
      ...(timing.clock ? { at: Math.floor(timing.clock.nowMs() / 1000) } : {}),
    }),
    [SESSION_HEADER]: await dashboardToken(
      { sub: staff.sub, email: null, roles: staff.roles },
      timing.sessionMaxAgeSeconds === undefined ? {} : { maxAge: timing.sessionMaxAgeSeconds },
    ),
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    ...request.headers,
  };
  return fetch(`${gateway.url}${path}`, { method, headers, body });
}

/** Shorthands bound to one gateway and one staff member. */
export function staffClient(gateway: { url: string }, staff: Staff, timing: StaffTiming = {}) {
  const call = (method: string) => (path: string, request?: StaffRequest) =>
    staffFetch(gateway, staff, method, path, request, timing);
  return {
    staff,
    get: call('GET'),
    post: call('POST'),
    put: call('PUT'),
    patch: call('PATCH'),
    delete: call('DELETE'),
  };
}

export type StaffClient = ReturnType<typeof staffClient>;
