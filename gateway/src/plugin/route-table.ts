import type { Request, Response } from 'express';
import FindMyWay from 'find-my-way';
import type { z } from 'zod';
import { coreErrors } from '../errors/core-errors.ts';
import type { GatewayError, ValidationIssue } from '../errors/gateway-error.ts';
import { findUnstorableText } from '../http/client-text.ts';

/**
 * The gateway's one route table. Plugins declare routes here instead of on an Express router so that the core
 * knows, before the gates run (pipeline steps 5-7, ADR 0003), which route a request is for: its owner, its
 * pattern (the metrics and audit label, never the raw path), and whether it is exempt or sensitive. The same
 * lookup dispatches to the handler, so matching happens once per request. Matching is find-my-way's radix
 * tree (Fastify's router); path syntax is `/things/:id` and a trailing `*` wildcard.
 */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * A protocol's own error document, for routes whose clients are built against a standard that fixes it (SCIM
 * answers with RFC 7644's error schema, not problem+json). It renders every error of a request that matched
 * the route, from the body step on: malformed or too deep JSON, the text guard, `authenticate`, validation
 * and the handler. The status, `X-Request-Id` and the error's headers are the same as problem+json's.
 */
export interface ErrorFormat {
  /** The Content-Type of the error responses, without parameters (`application/scim+json`). */
  readonly mediaType: string;
  /** The JSON document for `error`; only catalogue data and `requestId` may go into it, as in problem+json. */
  render(error: GatewayError, requestId: string): unknown;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

export interface RouteDefinition<P = Record<string, string>, Q = unknown, B = unknown> {
  method: HttpMethod | readonly HttpMethod[] | 'ALL';
  path: string;
  /** zod schemas for the parts of the request the handler reads, checked in pipeline step 8. */
  schema?: { params?: z.ZodType<P>; query?: z.ZodType<Q>; body?: z.ZodType<B> };
  /** Skips both gate layers. Exempt routes are listed on `GET /api/v1/health/full`. */
  exempt?: boolean;
  /** Writes an `api.access.sensitive` audit row for every call, not only writes. */
  sensitive?: boolean;
  /**
   * The route's own credential check (e.g. the KYC API key), run before schema validation: a caller
   * that is not authenticated learns nothing about the request's shape. Throw a GatewayError to refuse.
   */
  authenticate?: (req: Request, res: Response) => void | Promise<void>;
  /**
   * Refuse text that cannot be stored (U+0000, unpaired surrogates) anywhere in params, query or body with
   * 400 `request.invalid_text`, after `authenticate` and before the schema. Default true. Only a route
   * that does not store what it receives, or handles such text itself, sets false: the upstream proxies
   * pass bytes through untouched.
   */
  checkText?: boolean;
  /** Answers this route's errors in a protocol's own format instead of problem+json (see ErrorFormat). */
  errorFormat?: ErrorFormat;
  handler(req: Request, res: Response, input: RouteInput<P, Q, B>): unknown;
}

/** What the pipeline knows about the route a request matched. */
export interface MatchedRoute {
  readonly owner: string;
  readonly pattern: string;
  readonly exempt: boolean;
  readonly sensitive: boolean;
  /** Set when the route answers its errors in its own format; problem+json otherwise. */
  readonly errorFormat?: ErrorFormat;
  invoke(req: Request, res: Response): unknown;
}

export interface RouteMatch {
  route: MatchedRoute;
  params: Record<string, string | undefined>;
  /** Whether the URL has a query string (or fragment): found by the lookup, which splits it off anyway. */
  hasQuery: boolean;
}

export interface RouteRegistrar {
  add<P = Record<string, string>, Q = unknown, B = unknown>(route: RouteDefinition<P, Q, B>): void;
}

/** The zod schemas a route declared for the parts of the request its handler reads. */
export interface RouteSchemas {
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
}

export interface RouteSummary {
  owner: string;
  methods: string[];
  pattern: string;
  exempt: boolean;
  sensitive: boolean;
  /** The Content-Type of its error responses when it is not problem+json (see ErrorFormat). */
  errorMediaType?: string;
  /** What the route validates before its handler runs (none: the handler reads the request itself). */
  schema?: RouteSchemas;
}

export class RouteConflictError extends Error {
  override readonly name = 'RouteConflictError';
}

export class RouteTable {
  readonly #router = FindMyWay({
    caseSensitive: true,
    ignoreTrailingSlash: false,
    maxParamLength: 512,
    // Handlers read the query through Express (`req.query`); the router's own parse of it was work without
    // a reader. Kept raw, it still tells whether there is a query at all.
    querystringParser: keepRaw,
  });
  /** Normalised "METHOD pattern" → owner, for conflict messages that name both plugins. */
  readonly #claims = new Map<string, string>();
  readonly #summaries: RouteSummary[] = [];

  /** A registrar bound to one owner (a plugin id or `core`). */
  registrar(owner: string): RouteRegistrar {
    return { add: (route) => this.#add(owner, route as RouteDefinition) };
  }

  find(method: string, url: string): RouteMatch | null {
    const found = this.#router.find(method as HttpMethod, url);
    if (!found) return null;
    const query = found.searchParams as unknown as string;
    return { route: found.store as MatchedRoute, params: found.params, hasQuery: query.length > 0 };
  }

  /** Every declared route, for operators (`GET /api/v1/health/full`) and docs. */
  list(): readonly RouteSummary[] {
    return this.#summaries;
  }

  #add(owner: string, definition: RouteDefinition): void {
    if (!definition.path.startsWith('/')) {
      throw new RouteConflictError(`plugin ${owner}: route path "${definition.path}" must start with "/"`);
    }
    const methods = expandMethods(definition.method);
    const shape = normalise(definition.path);
    for (const method of methods) {
      const claimedBy = this.#claims.get(`${method} ${shape}`);
      if (claimedBy !== undefined) {
        const who =
          claimedBy === owner
            ? `declared twice by plugin ${owner}`
            : `claimed by both ${claimedBy} and ${owner}`;
        throw new RouteConflictError(`route ${method} ${definition.path} is ${who}`);
      }
    }
    const route: MatchedRoute = {
      owner,
      pattern: definition.path,
      exempt: definition.exempt ?? false,
      sensitive: definition.sensitive ?? false,
      ...(definition.errorFormat ? { errorFormat: definition.errorFormat } : {}),
      invoke: compileHandler(definition),
    };
    for (const method of methods) {
      this.#claims.set(`${method} ${shape}`, owner);
      this.#router.on(method, definition.path, noop, route);
    }
    this.#summaries.push({
      owner,
      methods,
      pattern: definition.path,
      exempt: route.exempt,
      sensitive: route.sensitive,
      ...(definition.errorFormat ? { errorMediaType: definition.errorFormat.mediaType } : {}),
      ...(definition.schema ? { schema: definition.schema } : {}),
    });
  }
}

function noop(): void {}

function keepRaw(query: string): string {
  return query;
}

function expandMethods(method: RouteDefinition['method']): HttpMethod[] {
  if (method === 'ALL') return [...HTTP_METHODS];
  const list: readonly HttpMethod[] = typeof method === 'string' ? [method] : method;
  // A GET route answers HEAD too, as Express does; HEAD responses carry no body (node:http drops it).
  return list.includes('GET') && !list.includes('HEAD') ? [...list, 'HEAD'] : [...list];
}

/** `/a/:id` and `/a/:key` are the same route: parameter names do not distinguish routes. */
function normalise(path: string): string {
  return path.replace(/:[^/]+/g, ':');
}

/**
 * Wraps a handler with the schema validation of pipeline step 8: params, query and body are parsed before the
 * handler runs, and a failure is one `validation.failed` error listing every issue.
 */
function compileHandler(definition: RouteDefinition): (req: Request, res: Response) => unknown {
  const validated = compileValidation(definition);
  const authenticate = definition.authenticate;
  if (!authenticate) return validated;
  return (req, res) => {
    const done = authenticate(req, res);
    return done instanceof Promise ? done.then(() => validated(req, res)) : validated(req, res);
  };
}

function compileValidation(definition: RouteDefinition): (req: Request, res: Response) => unknown {
  const schema = definition.schema;
  const checkText = definition.checkText !== false;
  // Only a pattern with parameters can give the request params to check.
  const hasParams = /[:*]/.test(definition.path);
  if (!schema) {
    // Without a query schema `input.query` stays undefined: Express 5 parses `req.query` lazily on access,
    // and most routes never read it.
    return (req, res) => {
      // The common case (no params, no body, no query string) decided here, without a call.
      if (checkText && (hasParams || req.body !== undefined || req.gatehouse.hasQuery)) {
        refuseUnstorableText(req, hasParams, undefined);
      }
      return definition.handler(req, res, {
        params: req.params as Record<string, string>,
        query: undefined,
        body: req.body,
      });
    };
  }
  return (req, res) => {
    // `req.query` parses the query string on every access: once here for both uses.
    const rawQuery = schema.query ? req.query : undefined;
    if (checkText) refuseUnstorableText(req, hasParams, rawQuery);
    const issues: ValidationIssue[] = [];
    const params = parsePart('params', schema.params, req.params, issues);
    const query = parsePart('query', schema.query, rawQuery, issues);
    const body = parsePart('body', schema.body, req.body, issues);
    if (issues.length > 0) {
      throw coreErrors.create('validation.failed', {
        detail: `${issues.length} problem${issues.length === 1 ? '' : 's'} with the request`,
        extensions: { errors: issues },
      });
    }
    return definition.handler(req, res, { params: params as Record<string, string>, query, body });
  };
}

/**
 * The core's text guard (docs/errors.md, `request.invalid_text`): PostgreSQL cannot store U+0000, and an
 * unpaired surrogate is not text, so either would fail deep in a handler as a 500, or be stored altered.
 * Refused here for every route, whatever its schema says. A body-less request without a query string, on
 * a route without parameters, costs three checks of values already known (see compileValidation).
 */
function refuseUnstorableText(req: Request, hasParams: boolean, parsedQuery: unknown): void {
  const hasQuery = parsedQuery !== undefined || req.gatehouse.hasQuery;
  // The body step already saw, in the raw bytes, when a JSON body cannot hold such text.
  const checkBody = req.body !== undefined && req.body !== req.textCheckedBody;
  if (!hasParams && !hasQuery && !checkBody) return;
  const issues: ValidationIssue[] = [];
  if (hasParams) findUnstorableText('params', req.params, issues);
  if (hasQuery) findUnstorableText('query', parsedQuery ?? req.query, issues);
  if (checkBody) findUnstorableText('body', req.body, issues);
  if (issues.length === 0) return;
  throw coreErrors.create('request.invalid_text', {
    detail: `${issues.length} value${issues.length === 1 ? '' : 's'} cannot be stored as text`,
    extensions: { errors: issues },
  });
}

function parsePart(
  part: 'params' | 'query' | 'body',
  schema: z.ZodType | undefined,
  value: unknown,
  issues: ValidationIssue[],
): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    issues.push({ path: [part, ...issue.path.map(String)].join('.'), message: issue.message });
  }
  return undefined;
}
