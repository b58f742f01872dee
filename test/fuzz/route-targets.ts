/**
 * What the fuzz suite attacks: every route of the gateway's route table (`RunningGateway.routes`), with the
 * shapes each one expects, from the zod schemas the route declared and from the OpenAPI documents the
 * gateway serves. A route added later is fuzzed without any change here.
 */
import { z } from 'zod';
import type { RouteSummary } from '../../gateway/src/plugin/route-table.ts';
import type { JsonSchema } from './schema-values.ts';

/** A schema and the document its `$ref`s resolve in. */
export interface SchemaRef {
  schema: JsonSchema;
  root: JsonSchema;
}

export interface FuzzTarget {
  /** `METHODS pattern`, e.g. `PATCH /api/v1/admin/kyc/tenants/:id`. */
  name: string;
  owner: string;
  methods: string[];
  pattern: string;
  exempt: boolean;
  /** The Content-Type of the route's errors when it answers in a protocol's own format (SCIM). */
  errorMediaType?: string;
  params?: SchemaRef;
  query?: SchemaRef;
  body?: SchemaRef;
  /** Request headers an OpenAPI operation documents (e.g. `Idempotency-Key`). */
  headers: Array<{ name: string; schema: SchemaRef }>;
}

type OpenApiDocument = JsonSchema & { openapi: string; paths: Record<string, Record<string, unknown>> };

/** One target per entry of the route table, the OpenAPI operation's shapes filling what zod did not declare. */
export function fuzzTargets(routes: readonly RouteSummary[], documents: readonly JsonSchema[]): FuzzTarget[] {
  return routes.map((route) => {
    const declared = {
      params: fromZod(route.schema?.params),
      query: fromZod(route.schema?.query),
      body: fromZod(route.schema?.body),
    };
    const documented = documentedShapes(documents as OpenApiDocument[], route);
    return {
      name: `${visibleMethods(route.methods).join(',')} ${route.pattern}`,
      owner: route.owner,
      methods: route.methods,
      pattern: route.pattern,
      exempt: route.exempt,
      ...(route.errorMediaType ? { errorMediaType: route.errorMediaType } : {}),
      params: declared.params ?? documented.params,
      query: declared.query ?? documented.query,
      body: declared.body ?? documented.body,
      headers: documented.headers,
    };
  });
}

/** The body of a JSON response if it is an OpenAPI document. */
export function asOpenApiDocument(text: string): JsonSchema | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<OpenApiDocument>;
    return typeof parsed.openapi === 'string' && typeof parsed.paths === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** GET routes that may serve an OpenAPI document: static GET paths (no parameter, no wildcard). */
export function documentCandidates(routes: readonly RouteSummary[]): string[] {
  return routes
    .filter((route) => route.methods.includes('GET') && !/[:*]/.test(route.pattern))
    .map((route) => route.pattern);
}

/** HEAD is listed only when the route declared nothing else: GET routes answer HEAD implicitly. */
function visibleMethods(methods: readonly string[]): string[] {
  const others = methods.filter((method) => method !== 'HEAD');
  return others.length > 0 ? others : [...methods];
}

function fromZod(schema: z.ZodType | undefined): SchemaRef | undefined {
  if (!schema) return undefined;
  // `input`: what a client sends (defaults optional); `any` for what JSON Schema cannot say (refinements).
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return { schema: json, root: json };
}

interface DocumentedShapes {
  params?: SchemaRef;
  query?: SchemaRef;
  body?: SchemaRef;
  headers: Array<{ name: string; schema: SchemaRef }>;
}

function documentedShapes(documents: readonly OpenApiDocument[], route: RouteSummary): DocumentedShapes {
  const shapes: DocumentedShapes = { headers: [] };
  for (const document of documents) {
    for (const [path, item] of Object.entries(document.paths)) {
      if (routeShape(path.replace(/\{[^{}]+\}/g, ':p')) !== routeShape(route.pattern)) continue;
      for (const method of route.methods) {
        const operation = item[method.toLowerCase()] as JsonSchema | undefined;
        if (operation) addOperation(shapes, operation, document);
      }
    }
  }
  return shapes;
}

function addOperation(shapes: DocumentedShapes, operation: JsonSchema, root: OpenApiDocument): void {
  const parameters = (operation.parameters ?? []) as Array<{ in: string; name: string; schema?: JsonSchema }>;
  const grouped: Record<string, Record<string, JsonSchema>> = { path: {}, query: {} };
  for (const parameter of parameters) {
    const schema = parameter.schema ?? {};
    if (parameter.in === 'header') shapes.headers.push({ name: parameter.name, schema: { schema, root } });
    else if (parameter.in in grouped)
      (grouped[parameter.in] as Record<string, JsonSchema>)[parameter.name] = schema;
  }
  const object = (properties: Record<string, JsonSchema>) =>
    Object.keys(properties).length > 0 ? { schema: { type: 'object', properties }, root } : undefined;
  shapes.params ??= object(grouped.path ?? {});
  shapes.query ??= object(grouped.query ?? {});
  const content = (operation.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)
    ?.content;
  const json = content?.['application/json']?.schema;
  if (json) shapes.body ??= { schema: json, root };
}

/** `/a/:id` and `/a/{key}` are the same route: parameter names do not distinguish routes. */
function routeShape(pattern: string): string {
  return pattern.replace(/:[^/]+/g, ':');
}

/**
 * Paths no route declares, inside the gated `/api/v1/` space and outside it: the pipeline's own answer to
 * an unknown route must hold the same properties.
 */
export const UNMATCHED_TARGETS: readonly FuzzTarget[] = [
  '/api/v1/fuzz-no-such-route/*',
  '/fuzz-no-such-route/*',
].map((pattern) => ({
  name: `(no route) ${pattern}`,
  owner: 'none',
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  pattern,
  exempt: false,
  headers: [],
}));
