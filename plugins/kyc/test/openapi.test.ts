/**
 * The KYC OpenAPI document (README, "API document and explorer"): GET /docs-json is valid OpenAPI 3
 * (swagger-parser), says what the API does (operations, X-Api-Key, problem+json errors), and is good enough
 * to build a client from: openapi-typescript generates types in this run, the TypeScript compiler checks a
 * small openapi-fetch client against them under the repository's strict settings, and that client then starts
 * a verification and reads it back from the running gateway.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { createKey, createTenant, startKycGateway } from '../../../test/support/kyc.ts';
import { REPO_ROOT } from '../../../test/support/process.ts';

/** Ignored by git; one directory per run, removed afterwards. Inside the repo so `openapi-fetch` resolves. */
const GENERATED = join(REPO_ROOT, 'test', '.generated', `openapi-${randomBytes(6).toString('hex')}`);

interface MediaType {
  schema: { $ref?: string };
  examples?: Record<string, { value: { status: number; code: string } }>;
}

interface Operation {
  operationId?: string;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType>; headers?: Record<string, unknown> }>;
}

interface Document {
  openapi: string;
  info: { title: string; version: string };
  security: Array<Record<string, string[]>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
}

let db: TestDatabase;
let gateway: TestGateway;
let sandboxKey: string;
let document: Document;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startKycGateway({ databaseUrl: db.url });
  const tenant = await createTenant(gateway, { name: 'Docs sandbox', sandbox: true });
  sandboxKey = (await createKey(gateway, tenant.id)).key;
  const res = await fetch(`${gateway.url}/docs-json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  document = (await res.json()) as Document;
});
afterAll(async () => {
  await rm(GENERATED, { recursive: true, force: true });
  await gateway?.close();
  await db?.drop();
});

function operation(path: string, method: string): Operation {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`no ${method.toUpperCase()} ${path} in the document`);
  return found;
}

describe('GET /docs-json', () => {
  it('is a valid OpenAPI 3 document', async () => {
    // validate() dereferences in place: give it a copy.
    await SwaggerParser.validate(structuredClone(document) as never);
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.info.title).toBe('Gatehouse KYC API');
  });

  it('declares X-Api-Key as the security scheme of every operation', () => {
    expect(document.components.securitySchemes).toEqual({
      ApiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }) as unknown,
    });
    expect(document.security).toEqual([{ ApiKey: [] }]);
  });

  it('lists the three tenant operations and none of the internal admin routes', () => {
    const ids = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.values(item).map((op) => `${op.operationId} ${path}`),
    );
    expect(ids.sort()).toEqual([
      'getUsage /api/v1/kyc/usage',
      'getVerification /api/v1/kyc/{id}',
      'initiateVerification /api/v1/kyc/initiate',
    ]);
  });

  it('describes initiate: body, Idempotency-Key, 201 with Location and RateLimit-*, problem+json errors', () => {
    const initiate = operation('/api/v1/kyc/initiate', 'post');
    expect(initiate.requestBody?.content['application/json']?.schema.$ref).toBe(
      '#/components/schemas/InitiateVerificationRequest',
    );
    expect(initiate.parameters).toContainEqual(
      expect.objectContaining({ in: 'header', name: 'Idempotency-Key' }),
    );
    const created = initiate.responses['201'];
    expect(created?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/Verification');
    expect(Object.keys(created?.headers ?? {})).toEqual(
      expect.arrayContaining(['Location', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
    expect(Object.keys(initiate.responses['429']?.headers ?? {})).toContain('Retry-After');
    expect(Object.keys(initiate.responses).sort()).toEqual(
      ['201', '400', '401', '402', '413', '422', '429', '500'].sort(),
    );
  });

  it('answers every error of every operation as application/problem+json with examples', () => {
    const seen: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          seen.push(`${method} ${path} ${status}`);
          const media = response.content?.['application/problem+json'];
          expect(media?.schema.$ref, `${method} ${path} ${status}`).toBe('#/components/schemas/Problem');
          const examples = Object.entries(media?.examples ?? {});
          expect(examples.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
          for (const [code, example] of examples) {
            expect(example.value).toMatchObject({ status: Number(status), code });
          }
        }
      }
    }
    expect(seen).toEqual(
      expect.arrayContaining([
        'post /api/v1/kyc/initiate 402',
        'get /api/v1/kyc/{id} 404',
        'get /api/v1/kyc/usage 401',
      ]),
    );
  });
});

/** The client a tenant would write: typed by the generated `paths`, nothing hand-declared. */
const CLIENT_SOURCE = `import createClient from 'openapi-fetch';
import type { paths } from './kyc-api.ts';

export async function initiateAndRead(baseUrl: string, apiKey: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'X-Api-Key': apiKey } });
  const created = await client.POST('/api/v1/kyc/initiate', {
    params: { header: { 'Idempotency-Key': 'generated-client-1' } },
    body: { type: 'INDIVIDUAL_KTP', subjectExternalRef: 'generated-client-1-approve' },
  });
  if (created.error) throw new Error(\`initiate: \${created.error.code}\`);
  const id: string = created.data.id;
  const read = await client.GET('/api/v1/kyc/{id}', { params: { path: { id } } });
  if (read.error) throw new Error(\`status: \${read.error.code}\`);
  return {
    created: { status: created.response.status, id, location: created.response.headers.get('location') },
    read: { status: read.response.status, id: read.data.id, verificationStatus: read.data.status },
  };
}

// The generated types must constrain, not just compile: each line below has to be a type error.
export async function misuse(client: ReturnType<typeof createClient<paths>>) {
  // @ts-expect-error: 'PASSPORT' is not a VerificationType
  await client.POST('/api/v1/kyc/initiate', { body: { type: 'PASSPORT', subjectExternalRef: 'x' } });
  // @ts-expect-error: the path parameter is required
  await client.GET('/api/v1/kyc/{id}', {});
  // @ts-expect-error: no such operation
  await client.DELETE('/api/v1/kyc/{id}', { params: { path: { id: 'x' } } });
}
`;

interface GeneratedClient {
  initiateAndRead(
    baseUrl: string,
    apiKey: string,
  ): Promise<{
    created: { status: number; id: string; location: string | null };
    read: { status: number; id: string; verificationStatus: string };
  }>;
}

/** Type-checks `files` with the repository's own compiler options (strict, noUncheckedIndexedAccess...). */
function typeErrors(files: string[]): string {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(REPO_ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  expect(config.options.strict).toBe(true);
  const program = ts.createProgram(files, config.options);
  return ts.formatDiagnostics(ts.getPreEmitDiagnostics(program), {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => REPO_ROOT,
    getNewLine: () => '\n',
  });
}

describe('a TypeScript client generated from /docs-json', () => {
  it('compiles under strict settings and initiates and reads a verification', async () => {
    await mkdir(GENERATED, { recursive: true });
    const types = astToString(await openapiTS(document as unknown as OpenAPI3, { silent: true }));
    expect(types).toContain('initiateVerification');
    const schemaFile = join(GENERATED, 'kyc-api.ts');
    const clientFile = join(GENERATED, 'client.ts');
    await writeFile(schemaFile, types);
    await writeFile(clientFile, CLIENT_SOURCE);

    expect(typeErrors([clientFile])).toBe('');

    const client = (await import(pathToFileURL(clientFile).href)) as GeneratedClient;
    const { created, read } = await client.initiateAndRead(gateway.url, sandboxKey);
    expect(created.status).toBe(201);
    expect(created.location).toBe(`/api/v1/kyc/${created.id}`);
    expect(read).toMatchObject({ status: 200, id: created.id });
    expect(['pending', 'processing', 'approved']).toContain(read.verificationStatus);
  }, 60_000);
});
