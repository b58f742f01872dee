import { encode } from '@auth/core/jwt';
import { SIGNATURE_HEADER, signatureHeader } from '../../gateway/src/gate/hmac.ts';

export { SIGNATURE_HEADER };
import { SESSION_HEADER } from '../../gateway/src/gate/gate.ts';
import { GATE_METRIC_NAMES } from '../../gateway/src/gate/gate-metrics.ts';
import { labelsOf, metricSamples } from './metric-samples.ts';

export const INTERNAL_SECRET = 'internal-secret-0123456789abcdef-0123456789';
export const INTERNAL_SECRET_NEXT = 'internal-secret-next-9876543210fedcba-98765';
export const AUTH_SECRET = 'auth-secret-for-the-dashboard-0123456789';
export const AUTH_SECRET_OLD = 'auth-secret-being-rotated-out-0123456789';
export const COOKIE = 'authjs.session-token';

/** The gate settings the tests run with (both secrets rotating). */
export function gateEnv(mode: 'disabled' | 'warn' | 'enforce'): Record<string, string> {
  return {
    API_AUTH_MODE: mode,
    INTERNAL_API_SECRET: `${INTERNAL_SECRET},${INTERNAL_SECRET_NEXT}`,
    AUTH_SECRET: `${AUTH_SECRET},${AUTH_SECRET_OLD}`,
  };
}

/** What a dashboard does: sign `<t>.<METHOD>.<path with query>.<raw body>` (docs/api-auth-gate.md). */
export function sign(options: {
  method: string;
  url: string;
  body?: string;
  secret?: string;
  at?: number;
}): string {
  return signatureHeader(options.secret ?? INTERNAL_SECRET, options.at ?? Math.floor(Date.now() / 1000), {
    method: options.method,
    url: options.url,
    body: options.body === undefined ? undefined : Buffer.from(options.body),
  });
}

/** A session token exactly as Auth.js makes it (`@auth/core`'s encode). */
export function mintSession(
  options: {
    claims?: Record<string, unknown>;
    secret?: string;
    salt?: string;
    maxAge?: number;
  } = {},
): Promise<string> {
  return encode({
    token: { sub: 'user-42', email: 'ada@example.com', roles: ['agent'], sid: 'sid-1', ...options.claims },
    secret: options.secret ?? AUTH_SECRET,
    salt: options.salt ?? COOKIE,
    maxAge: options.maxAge ?? 3600,
  });
}

/** Both gate headers for a request, both valid. */
export async function gateHeaders(
  method: string,
  url: string,
  body?: string,
): Promise<Record<string, string>> {
  return { [SIGNATURE_HEADER]: sign({ method, url, body }), [SESSION_HEADER]: await mintSession() };
}

/** `gatehouse_auth_gate_decisions_total` as {"layer outcome": value} for one mode. */
export async function decisions(metricsUrl: string): Promise<Record<string, number>> {
  const samples = await metricSamples(metricsUrl, GATE_METRIC_NAMES.decisions);
  return Object.fromEntries(
    Object.entries(samples).map(([key, value]) => {
      const { layer, outcome } = labelsOf(key);
      return [`${layer} ${outcome}`, value];
    }),
  );
}

/** Per-key difference of two counter snapshots, zero entries dropped. */
export function delta(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) {
    const diff = value - (before[key] ?? 0);
    if (diff !== 0) out[key] = diff;
  }
  return out;
}
