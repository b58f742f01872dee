/**
 * The staff API's OpenAPI document (README, "Staff API", "API document"): served without credentials at
 * GET /api/v1/openapi.json by a gateway in enforce mode, valid OpenAPI 3.1 (swagger-parser), and complete:
 * every gated staff route of the booted gateway's route table is in it and it describes no route that does
 * not exist, so a route added without its documentation fails here.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { messagingErrors } from '../src/errors.ts';

interface MediaType {
  schema?: { $ref?: string };
  examples?: Record<string, { value: { status: number; code: string } }>;
}

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

interface Document {
  openapi: string;
  info: { title: string };
  security: Array<Record<string, string[]>>;
  components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
  paths: Record<string, Record<string, Operation>>;
}

/** The staff API's prefixes: every gated route under them must be documented. */
const STAFF_PREFIXES = [
  '/api/v1/agent/',
  '/api/v1/leads',
  '/api/v1/messages/',
  '/api/v1/follow-up/',
  '/api/v1/faq',
  '/api/v1/kb/',
];
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let document: Document;

beforeAll(async () => {
  ({ gateway, stop } = await startStaffApiHarness());
  // No signature, no session: the document is exempt from the gate even in enforce mode.
  const res = await fetch(`${gateway.url}/api/v1/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  document = (await res.json()) as Document;
}, 60_000);
afterAll(() => stop?.());

/** `METHOD /path/{param}` of every documented operation. */
function documented(): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

function operations(): Array<[string, Operation]> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([key]) => HTTP_METHODS.includes(key))
      .map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
  );
}

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    // validate() dereferences in place: give it a copy.
    await SwaggerParser.validate(structuredClone(document) as never);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBe('Gatehouse staff API');
  });

  it('is listed with the exempt routes operators review', () => {
    const route = gateway.routes.find((r) => r.pattern === '/api/v1/openapi.json');
    expect(route).toMatchObject({ owner: 'messaging', exempt: true, methods: ['GET', 'HEAD'] });
  });

  it('documents every gated staff route of the route table, and nothing else', () => {
    const registered = gateway.routes
      .filter((route) => !route.exempt && STAFF_PREFIXES.some((prefix) => route.pattern.startsWith(prefix)))
      .flatMap((route) =>
        route.methods
          .filter((method) => method !== 'HEAD')
          .map((method) => `${method} ${route.pattern.replace(/:([A-Za-z]+)/g, '{$1}')}`),
      );
    expect(registered.length).toBeGreaterThan(0);
    expect(documented().sort()).toEqual(registered.sort());
  });

  it('requires both gate layers on every operation', () => {
    expect(document.components.securitySchemes).toEqual({
      InternalSignature: expect.objectContaining({
        type: 'apiKey',
        in: 'header',
        name: 'X-Internal-Signature',
      }) as unknown,
      ForwardedSession: expect.objectContaining({
        type: 'apiKey',
        in: 'header',
        name: 'X-Forwarded-Session',
      }) as unknown,
    });
    expect(document.security).toEqual([{ InternalSignature: [], ForwardedSession: [] }]);
  });

  it('gives each operation a unique id, a tag, a summary and its path parameters', () => {
    const ids = operations().map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [key, op] of operations()) {
      expect(op.operationId, key).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(op.tags?.length, key).toBeGreaterThan(0);
      expect(op.summary, key).toBeTruthy();
      for (const [, name] of key.matchAll(/\{([A-Za-z]+)\}/g)) {
        expect(op.parameters, key).toContainEqual(
          expect.objectContaining({ in: 'path', name, required: true }),
        );
      }
    }
  });

  it('answers every error as application/problem+json, with examples the catalogues built', () => {
    const known = new Set(Object.keys(messagingErrors.specs));
    for (const [key, op] of operations()) {
      expect(Object.keys(op.responses), key).toEqual(expect.arrayContaining(['401', '500']));
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content?.['application/problem+json'];
        expect(media?.schema?.$ref, `${key} ${status}`).toBe('#/components/schemas/Problem');
        const examples = Object.entries(media?.examples ?? {});
        expect(examples.length, `${key} ${status}`).toBeGreaterThan(0);
        for (const [code, example] of examples) {
          expect(example.value, `${key} ${status}`).toMatchObject({ status: Number(status), code });
          if (code.startsWith('messaging.')) expect(known, code).toContain(code);
        }
      }
    }
  });
});
