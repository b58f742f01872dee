import { encode } from '@auth/core/jwt';
import { SESSION_HEADER } from '../../gateway/src/gate/gate.ts';
import { SIGNATURE_HEADER, signatureHeader } from '../../gateway/src/gate/hmac.ts';
import { BENCH_INTERNAL_SECRET } from './messaging-gateway.ts';
import { BENCH_AUTH_SECRET, BENCH_SESSION_COOKIE } from './realtime-gateway.ts';

/** A staff member as the dashboard's session token names them. */
export interface BenchStaff {
  sub: string;
  roles: readonly string[];
}

/**
 * The two gate headers of a dashboard's GET of `path` (with its query) as `staff`: the HMAC signature
 * (valid ±300 s: made per measured window) and a session token minted as Auth.js does.
 */
export async function staffHeaders(staff: BenchStaff, path: string): Promise<Record<string, string>> {
  return {
    [SIGNATURE_HEADER]: signatureHeader(BENCH_INTERNAL_SECRET, Math.floor(Date.now() / 1000), {
      method: 'GET',
      url: path,
      body: undefined,
    }),
    [SESSION_HEADER]: await encode({
      token: { sub: staff.sub, email: `${staff.sub}@example.com`, roles: [...staff.roles] },
      secret: BENCH_AUTH_SECRET,
      salt: BENCH_SESSION_COOKIE,
      maxAge: 3600,
    }),
  };
}

/** One signed GET; throws unless the answer is 200, with the problem document the gateway sent. */
export async function staffGet<T>(baseUrl: string, staff: BenchStaff, path: string): Promise<T> {
  const res = await fetch(baseUrl + path, { headers: await staffHeaders(staff, path) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path} as ${staff.sub}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}
