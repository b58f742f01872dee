import type { ResourceDefinition } from './attributes.ts';
import type { JsonObject } from './json.ts';

/** `attributes` / `excludedAttributes` of a request, as top-level names (lower case) or extension URNs. */
export interface Projection {
  readonly only?: ReadonlySet<string>;
  readonly excluded: ReadonlySet<string>;
}

/** Always returned, whatever a request asks (RFC 7643: `returned: always`). */
const ALWAYS = new Set(['id', 'schemas']);

/**
 * Reads `attributes` and `excludedAttributes` (comma-separated). A sub-attribute (`name.givenName`) selects its
 * whole attribute, a schema URN prefix is dropped, an extension attribute selects the extension object.
 */
export function projection(
  resource: ResourceDefinition,
  query: { attributes?: string | undefined; excludedAttributes?: string | undefined },
): Projection {
  const names = (list: string | undefined) =>
    new Set(
      (list ?? '')
        .split(',')
        .map((name) => topLevel(resource, name.trim().toLowerCase()))
        .filter((name) => name !== ''),
    );
  const only = query.attributes?.trim() ? names(query.attributes) : undefined;
  return { ...(only ? { only } : {}), excluded: names(query.excludedAttributes) };
}

function topLevel(resource: ResourceDefinition, name: string): string {
  const core = `${resource.schema.toLowerCase()}:`;
  if (name.startsWith(core)) return topLevel(resource, name.slice(core.length));
  for (const extension of resource.extensions) {
    const urn = extension.schema.toLowerCase();
    if (name === urn || name.startsWith(`${urn}:`)) return urn;
  }
  const dot = name.indexOf('.');
  return dot < 0 ? name : name.slice(0, dot);
}

/** Whether the projection returns the attribute `name` (lower case). */
export function returns(projection: Projection, name: string): boolean {
  if (ALWAYS.has(name)) return true;
  if (projection.excluded.has(name)) return false;
  return projection.only === undefined || projection.only.has(name);
}

/** The resource with only the attributes the projection returns. */
export function project(resource: JsonObject, selected: Projection): JsonObject {
  if (selected.only === undefined && selected.excluded.size === 0) return resource;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(resource)) {
    if (returns(selected, key.toLowerCase())) out[key] = value;
  }
  return out;
}
