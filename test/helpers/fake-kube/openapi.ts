/**
 * The OpenAPI v3 documents kubectl reads before it writes (README.md beside this file, "kubectl"): the root
 * `/openapi/v3` lists one document per group-version, and each document describes the PATCH operation of every
 * served kind. kubectl looks for two things there: the `fieldValidation` query parameter (present: the server
 * validates fields, so `kubectl apply --validate=strict` sends `fieldValidation=Strict` instead of validating
 * on the client) and the strategic merge patch media type (present for built-in kinds, absent for custom ones,
 * which kubectl then patches with a JSON merge patch). No schemas are published: kubectl then computes its
 * strategic merge patches from its own compiled-in types, as it does for any server without them.
 */
import { createHash } from 'node:crypto';
import { apiVersionOf, type ResourceRegistry } from './resources.ts';
import type { JsonObject, ResourceType } from './types.ts';

const ROOT = '/openapi/v3';

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
