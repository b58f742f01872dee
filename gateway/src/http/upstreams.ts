import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { createProxyMiddleware, proxyEventsPlugin, type Plugin } from 'http-proxy-middleware';
import type { Logger } from 'pino';
import { coreErrors } from '../errors/core-errors.ts';
import type { UpstreamConfig } from '../gate/config.ts';
import { SESSION_HEADER } from '../gate/gate.ts';
import { SIGNATURE_HEADER } from '../gate/hmac.ts';
import type { RouteRegistrar } from '../plugin/route-table.ts';
import { sendProblem } from './error-handler.ts';
import { REQUEST_ID_HEADER } from './request-state.ts';

/**
 * Identity headers the gateway sets for upstreams; a client can never send its own, so an upstream may trust
 * them (docs/api-auth-gate.md, "Upstream proxies").
 */
const IDENTITY_HEADER_PREFIX = 'x-gatehouse-';
/**
 * Headers an upstream never receives from the client: the gate's own credentials (the upstream gets the
 * verified identity instead; a session token passed on is a credential exposed to one more service) and
 * forwarding headers, which the gateway sets itself from what it trusts (TRUST_PROXY).
 */
const DROPPED_HEADERS = new Set([
  SESSION_HEADER,
  SIGNATURE_HEADER,
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'forwarded',
]);
/**
 * Names the gateway or HTTP itself owns. Spelled with `_`, they are kept from upstreams even when
 * UPSTREAM_UNDERSCORE_HEADERS=keep: an upstream that reads `X_Request_Id` as X-Request-Id, or
 * `Transfer_Encoding` as framing, would otherwise take the client's word for it.
 */
const OWNED_HEADERS = new Set([
  REQUEST_ID_HEADER.toLowerCase(),
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
]);

/**
 * Whether a client header must not reach an upstream. CGI, WSGI, PHP and nginx-style upstreams turn
 * header names into variables with `-` and `_` both becoming `_` (`X_Gatehouse_User` and
 * `X-Gatehouse-User` are both HTTP_X_GATEHOUSE_USER), so names are compared with `_` folded to `-`.
 * Beyond those, any name with `_` is dropped unless the operator keeps them, as nginx does by default.
 */
export function isStrippedHeader(name: string, underscores: 'drop' | 'keep'): boolean {
  const lower = name.toLowerCase();
  const folded = lower.replaceAll('_', '-');
  if (folded.startsWith(IDENTITY_HEADER_PREFIX) || DROPPED_HEADERS.has(folded)) return true;
  if (folded === lower) return false;
  return underscores === 'drop' || OWNED_HEADERS.has(folded);
}

/**
 * GATEWAY_UPSTREAMS: each `{prefix, target, exempt?, stripPrefix?}` mounts a reverse proxy
 * (http-proxy-middleware) as an ordinary route of the route table, so it runs after the gate like any
 * other route and a prefix that collides with a plugin's route refuses boot.
 *
 * Upstreams receive `X-Gatehouse-User` (the session's `sub`), `X-Gatehouse-Roles` (comma-separated),
 * `X-Request-Id` and `X-Forwarded-For/-Proto/-Host` as the gateway determined them; any `X-Gatehouse-*`
 * header from the client is removed first, and so are the gate's credentials and client-sent forwarding
 * headers, in any spelling (`X_Gatehouse_User`), and by default every header with `_` in its name. A route a plugin declares under an upstream's prefix is more specific and takes precedence. The body was already read
 * by the pipeline (step 3), so its exact bytes are re-sent. Upstream down → 502
 * `gateway.upstream_unavailable`; no response started within UPSTREAM_TIMEOUT_MS (connecting included) → 504 `gateway.upstream_timeout`.
 */
export function registerUpstreams(
  routes: RouteRegistrar,
  upstreams: readonly UpstreamConfig[],
  options: { timeoutMs: number; underscoreHeaders: 'drop' | 'keep'; logger: Logger },
): void {
  for (const upstream of upstreams) {
    const proxy = createProxyMiddleware<Request, Response>({
      target: upstream.target,
      changeOrigin: true,
      // X-Forwarded-* are set below from Express's view of the client (which honours TRUST_PROXY):
      // the proxy library would keep a client's own values.
      xfwd: false,
      // The default plugins answer errors in plain text and log through console; ours answer problem+json.
      // proxyEventsPlugin is what wires the `on` handlers below, so it stays.
      ejectPlugins: true,
      plugins: [proxyEventsPlugin as unknown as Plugin<Request, Response>],
      pathRewrite: upstream.stripPrefix ? (path) => path.slice(upstream.prefix.length) || '/' : undefined,
      on: {
        proxyReq(proxyReq, req) {
          // A throw here would escape into the proxy library's event emitter and end the process: whatever
          // goes wrong while preparing the request fails this request alone (502, through `error` below).
          try {
            prepareUpstreamRequest(proxyReq, req, options);
          } catch (err) {
            proxyReq.destroy(err as Error);
          }
        },
        error(err, req, res) {
          const code = (err as NodeJS.ErrnoException).code;
          options.logger.warn(
            { reqId: req.gatehouse.id, upstream: upstream.target, code },
            'upstream request failed',
          );
          if (!isResponse(res)) {
            res.destroy();
            return;
          }
          const error =
            code === 'UPSTREAM_TIMEOUT'
              ? coreErrors.create('gateway.upstream_timeout')
              : coreErrors.create('gateway.upstream_unavailable');
          sendProblem(req, res, error);
        },
      },
    });
    const handler = (req: Request, res: Response) => proxy(req, res);
    for (const path of [upstream.prefix, `${upstream.prefix}/*`]) {
      // The upstream owns what it receives: the bytes go through untouched, NULs included.
      routes.add({ method: 'ALL', path, exempt: upstream.exempt, checkText: false, handler });
    }
  }
}

/**
 * The request an upstream receives: the client's headers without the ones it must never see, the forwarding
 * and identity headers as the gateway determined them, the exact body bytes, and the deadline.
 */
function prepareUpstreamRequest(
  proxyReq: ClientRequest,
  req: Request,
  options: { timeoutMs: number; underscoreHeaders: 'drop' | 'keep' },
): void {
  for (const name of proxyReq.getHeaderNames()) {
    if (isStrippedHeader(name, options.underscoreHeaders)) proxyReq.removeHeader(name);
  }
  // req.ips: the trusted X-Forwarded-For chain from the client on (empty unless TRUST_PROXY);
  // the immediate peer comes last, as every proxy appends it.
  const peer = req.socket.remoteAddress ?? '';
  proxyReq.setHeader('X-Forwarded-For', [...req.ips, peer].filter(Boolean).join(', '));
  proxyReq.setHeader('X-Forwarded-Proto', req.protocol);
  if (req.hostname) proxyReq.setHeader('X-Forwarded-Host', req.hostname);
  proxyReq.setHeader(REQUEST_ID_HEADER, req.gatehouse.id);
  if (req.identity) {
    proxyReq.setHeader('X-Gatehouse-User', utf8HeaderValue(req.identity.sub));
    proxyReq.setHeader('X-Gatehouse-Roles', utf8HeaderValue(req.identity.roles.join(',')));
  }
  if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) {
    // The body was read, and decompressed per its Content-Encoding, before the gate checked it: the
    // upstream gets those bytes, framed by their own length. The client's encoding and length describe
    // other bytes (the upstream would decode twice, or wait for bytes that never come).
    const body = req.rawBody ?? Buffer.alloc(0);
    proxyReq.removeHeader('Transfer-Encoding');
    proxyReq.removeHeader('Content-Encoding');
    proxyReq.setHeader('Content-Length', body.length);
    if (body.length > 0) proxyReq.write(body);
  }
  proxyReq.setTimeout(options.timeoutMs, () => {
    proxyReq.destroy(
      Object.assign(new Error('upstream did not answer in time'), { code: 'UPSTREAM_TIMEOUT' }),
    );
  });
}

/**
 * A header value carrying any Unicode text as its UTF-8 bytes (docs/api-auth-gate.md, "Upstreams"). node:http
 * writes a header string one byte per character, so the UTF-8 bytes go in as Latin-1 characters: ASCII values
 * (ids, emails, role names) are sent unchanged, and `用户` arrives as the bytes an upstream decodes with UTF-8.
 * The session verifier already refused claims with control characters, which no header may hold.
 */
export function utf8HeaderValue(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

function isResponse(value: unknown): value is Response & ServerResponse<IncomingMessage> {
  return typeof (value as ServerResponse).writeHead === 'function';
}
