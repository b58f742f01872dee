import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseCookies } from 'cookie';
import {
  type ApiAuthMode,
  type FailureAudit,
  type GatewayError,
  SESSION_HEADER,
  type SessionIdentity,
  type PluginContext,
} from '../../../../gateway/src/plugin-api.ts';
import { realtimeErrors } from '../errors.ts';
import type { RealtimeMetrics } from './metrics.ts';

/** The path socket.io answers on; also the `route` of the handshake's audit rows. */
export const SOCKET_PATH = '/socket.io';

/** Who is on a socket: the verified identity (null for an anonymous socket) and the token to check again. */
export interface SocketSession {
  identity: SessionIdentity | null;
  token: string | null;
}

export interface HandshakeInput {
  token: string | undefined;
  headers: IncomingHttpHeaders;
  socketId: string;
  ip: string | null;
}

export type HandshakeOutcome = { ok: true; session: SocketSession } | { ok: false; error: GatewayError };

/**
 * Authenticates a socket.io handshake with the gate's layer-2 verifier (`ctx.sessions.verify`, the one
 * module the HTTP gate uses, revocation and current roles included), in the gate's phase: `enforce`
 * refuses a missing or bad session; `warn` accepts the socket without an identity and audits the failure
 * as the HTTP gate does (collapsed); `disabled` accepts it and writes nothing (README, "Connecting").
 */
export function createSocketAuthenticator(deps: {
  ctx: Pick<PluginContext<unknown>, 'sessions' | 'core'>;
  mode: ApiAuthMode;
  failures: FailureAudit;
  metrics: RealtimeMetrics;
}) {
  const allowedOrigins = new Set([
    ...deps.ctx.core.CORS_ORIGINS,
    ...(deps.ctx.core.APP_BASE_URL ? [new URL(deps.ctx.core.APP_BASE_URL).origin] : []),
  ]);

  return async (input: HandshakeInput): Promise<HandshakeOutcome> => {
    let found = findToken(input, deps.ctx.sessions.cookieName);
    // A browser sends the cookie along from any page of the same site: from a page the gateway does not
    // trust, the cookie is no credential (and in enforce, the refusal says why).
    if (found.fromCookie && !originAllowed(input.headers.origin, allowedOrigins)) {
      if (deps.mode === 'enforce') {
        recordFailure(deps, input, 'origin');
        deps.metrics.handshake(deps.mode, 'fail');
        return { ok: false, error: realtimeErrors.create('realtime.origin.forbidden') };
      }
      found = { token: undefined, fromCookie: false };
    }
    const result = await deps.ctx.sessions.verify(found.token);
    if (result.ok) {
      deps.metrics.handshake(deps.mode, 'pass');
      return { ok: true, session: { identity: result.identity, token: found.token ?? null } };
    }
    if (deps.mode === 'disabled') {
      deps.metrics.handshake(deps.mode, 'skipped');
      return { ok: true, session: { identity: null, token: null } };
    }
    recordFailure(deps, input, result.reason);
    if (deps.mode === 'warn') {
      deps.metrics.handshake(deps.mode, 'would_deny');
      return { ok: true, session: { identity: null, token: null } };
    }
    deps.metrics.handshake(deps.mode, 'fail');
    return { ok: false, error: realtimeErrors.create('realtime.unauthenticated') };
  };
}

/** An audit row as the HTTP gate writes one for a failed layer 2 (collapsed by the failure audit). */
function recordFailure(
  deps: { mode: ApiAuthMode; failures: FailureAudit },
  input: HandshakeInput,
  reason: string,
): void {
  if (deps.mode === 'disabled') return;
  deps.failures.record({
    kind: 'api.auth.session_failed',
    mode: deps.mode,
    reason,
    method: 'GET',
    route: SOCKET_PATH,
    requestId: input.socketId,
    ip: input.ip,
  });
}

/** The session token: `auth.token`, else the forwarded-session header, else the gateway's session cookie. */
function findToken(
  input: HandshakeInput,
  cookieName: string,
): { token: string | undefined; fromCookie: boolean } {
  if (input.token !== undefined) return { token: input.token, fromCookie: false };
  const header = input.headers[SESSION_HEADER];
  if (typeof header === 'string' && header !== '') return { token: header, fromCookie: false };
  const cookie = input.headers.cookie;
  if (typeof cookie !== 'string') return { token: undefined, fromCookie: false };
  const token = parseCookies(cookie)[cookieName];
  return token ? { token, fromCookie: true } : { token: undefined, fromCookie: false };
}

/** No Origin header: not a browser page (a server or a mobile app), which a cookie cannot be stolen from. */
function originAllowed(origin: string | undefined, allowed: ReadonlySet<string>): boolean {
  return origin === undefined || allowed.has(origin);
}
