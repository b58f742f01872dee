/**
 * The OpenAPI v3 documents kubectl reads before it writes (README.md beside this file, "kubectl"): the root
 * `/openapi/v3` lists one document per group-version, and each document describes the PATCH operation of every
 * served kind. kubectl looks for two things there: the `fieldValidation` query parameter (present: the server
 * validates fields, so `kubectl apply --validate=strict` sends `fieldValidation=Strict` instead of validating
 * on the client) and the strategic merge patch media type (present for built-in kinds, absent for custom ones,
 * which kubectl then patches with a JSON merge patch). No schemas are published: kubectl then computes its
 * strategic merge patches from its own compiled-in types, as it does for any server without them.
 *
 * `/openapi/v2` is an empty document (no paths, no definitions): kubectl reads it, in protobuf, when the v3
 * documents say a kind does not take `fieldValidation` (a kind no CRD defines yet), and validates nothing for
 * a kind it does not describe, so the error is the real server's "no matches for kind".
 */
import { createHash } from 'node:crypto';
import { apiVersionOf, type ResourceRegistry } from './resources.ts';
import type { ServerResponse } from 'node:http';
import type { JsonObject, ResourceType } from './types.ts';

const ROOT = '/openapi/v3';
const V2 = '/openapi/v2';
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

/** The patch media types the fake accepts; strategic merge only for built-in kinds, as on a real server. */
export function patchMediaTypes(resource: ResourceType): string[] {
  return [
    'application/json-patch+json',
    'application/merge-patch+json',
    ...(resource.strategicMergePatch ? ['application/strategic-merge-patch+json'] : []),
    'application/apply-patch+yaml',
  ];
}

/** The query parameters of a write the fake honours (see README.md). */
const WRITE_PARAMETERS = ['fieldManager', 'fieldValidation', 'force'].map((name) => ({
  name,
  in: 'query',
  schema: { type: name === 'force' ? 'boolean' : 'string' },
}));

/** `api/v1` or `apis/{group}/{version}`: how the root names a group-version's document. */
function documentKey(groupVersion: string): string {
  return groupVersion.includes('/') ? `apis/${groupVersion}` : `api/${groupVersion}`;
}

function itemPath(resource: ResourceType): string {
  const prefix = resource.group === '' ? `/api/${resource.version}` : `/apis/${apiVersionOf(resource)}`;
  const scope = resource.namespaced ? '/namespaces/{namespace}' : '';
  return `${prefix}${scope}/${resource.plural}/{name}`;
}

function patchOperation(resource: ResourceType): JsonObject {
  return {
    operationId: `patch${resource.kind}`,
    parameters: WRITE_PARAMETERS,
    requestBody: {
      required: true,
      content: Object.fromEntries(
        patchMediaTypes(resource).map((type) => [type, { schema: { type: 'object' } }]),
      ),
    },
    responses: { '200': { description: 'OK' }, '201': { description: 'Created' } },
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': {
      group: resource.group,
      version: resource.version,
      kind: resource.kind,
    },
  };
}

function groupVersionDocument(groupVersion: string, registry: ResourceRegistry): JsonObject {
  const resources = registry.all.filter((resource) => apiVersionOf(resource) === groupVersion);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.34.0-fake' },
    paths: Object.fromEntries(resources.map((r) => [itemPath(r), { patch: patchOperation(r) }])),
    // Present but empty: kubectl falls back to its compiled-in types without a warning.
    components: { schemas: {} },
  };
}

function rootDocument(registry: ResourceRegistry): JsonObject {
  const entries = registry.groupVersions().map((groupVersion) => {
    const key = documentKey(groupVersion);
    const hash = createHash('sha256')
      .update(JSON.stringify(groupVersionDocument(groupVersion, registry)))
      .digest('hex')
      .slice(0, 32)
      .toUpperCase();
    return [key, { serverRelativeURL: `${ROOT}/${key}?hash=${hash}` }];
  });
  return { paths: Object.fromEntries(entries) };
}

/** The OpenAPI v3 document at `pathname`, or undefined when it is none (a 404). */
export function openApiDocument(pathname: string, registry: ResourceRegistry): JsonObject | undefined {
  const trimmed = pathname.replace(/\/$/, '');
  if (trimmed === ROOT) return rootDocument(registry);
  if (!trimmed.startsWith(`${ROOT}/`)) return undefined;
  const key = trimmed.slice(ROOT.length + 1);
  const groupVersion = registry.groupVersions().find((gv) => documentKey(gv) === key);
  return groupVersion === undefined ? undefined : groupVersionDocument(groupVersion, registry);
}

/**
 * Answers `GET /openapi/v2` when `pathname` is that: the empty document, as zero bytes of protobuf (an empty
 * message) when asked for protobuf, else as JSON. Returns whether it answered.
 */
export function answerOpenApiV2(pathname: string, accept: string | undefined, res: ServerResponse): boolean {
  if (pathname.replace(/\/$/, '') !== V2) return false;
  if (accept?.includes(V2_PROTOBUF)) {
    // What a real server answers with (Go's media type parser refuses the `@` of the asked type).
    res.writeHead(200, {
      'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
      'Content-Length': '0',
    });
    res.end();
    return true;
  }
  const body = {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'v1.34.0-fake' },
    paths: {},
    definitions: {},
  };
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
  return true;
}
