/**
 * What the operator owns of the target Deployment, read from its `metadata.managedFields` (the API server's
 * record of server-side apply: operator/README.md, "Field ownership"). Pure.
 */
import { isJsonObject, type JsonObject } from '../api/json.ts';

/** Lists of the operator's apply configuration merged by key on the server (the rest are fields or atomic). */
const KEYED_LISTS: Readonly<Record<string, string>> = { containers: 'name', env: 'name' };

/**
 * True when the manager's server-side applies own no field beyond those of `configuration`: nothing to give
 * back. An operator that once sent whole containers co-owns the image and every other field of them, which a
 * `helm upgrade` would then meet as a conflict; applying `configuration` again hands them back.
 */
export function ownsOnly(live: JsonObject, fieldManager: string, configuration: JsonObject): boolean {
  const metadata = isJsonObject(live.metadata) ? live.metadata : {};
  const entries = Array.isArray(metadata.managedFields) ? metadata.managedFields.filter(isJsonObject) : [];
  const own = entries.find(
    (entry) => entry.manager === fieldManager && entry.operation === 'Apply' && !entry.subresource,
  );
  if (own === undefined) return true;
  const wanted = appliedPaths(configuration);
  return [...ownedPaths(own.fieldsV1)].every((path) => wanted.has(path));
}

/** The paths of `fieldsV1` (`f:spec/f:template/...`), each node marked `.` and each leaf. */
export function ownedPaths(fieldsV1: unknown, prefix = '', paths = new Set<string>()): Set<string> {
  if (!isJsonObject(fieldsV1)) return paths;
  for (const [step, child] of Object.entries(fieldsV1)) {
    if (step === '.') paths.add(prefix);
    else if (isJsonObject(child) && Object.keys(child).length > 0)
      ownedPaths(child, `${prefix}/${step}`, paths);
    else paths.add(`${prefix}/${step}`);
  }
  return paths;
}

/** The paths the API server records for an apply configuration (its metadata name and namespace excepted). */
export function appliedPaths(configuration: JsonObject): Set<string> {
  const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = configuration;
  const { name: _name, namespace: _namespace, ...ownMetadata } = isJsonObject(metadata) ? metadata : {};
  const paths = new Set<string>();
  walk(Object.keys(ownMetadata).length > 0 ? { ...rest, metadata: ownMetadata } : rest, '', paths);
  return paths;
}

function walk(object: JsonObject, prefix: string, paths: Set<string>): void {
  for (const [field, value] of Object.entries(object)) {
    const path = `${prefix}/f:${field}`;
    const key = KEYED_LISTS[field];
    if (Array.isArray(value) && key !== undefined) {
      for (const item of value.filter(isJsonObject)) {
        const itemPath = `${path}/k:${JSON.stringify({ [key]: item[key] })}`;
        paths.add(itemPath);
        walk(item, itemPath, paths);
      }
    } else if (isJsonObject(value) && Object.keys(value).length > 0) walk(value, path, paths);
    else paths.add(path);
  }
}

/**
 * Whether a server-side apply by `fieldManager` that no longer sends the gateway container's env entry `name` makes
 * the API server remove it: the manager's apply owns the entry and no other manager does. With no record of
 * ownership at all (`managedFields` absent), the entry is taken for one the manager set. Pure.
 */
export function dropsEnvEntry(
  live: JsonObject,
  fieldManager: string,
  container: string,
  name: string,
): boolean {
  const metadata = isJsonObject(live.metadata) ? live.metadata : {};
  if (!Array.isArray(metadata.managedFields)) return true;
  const item = `/f:spec/f:template/f:spec/f:containers/k:${JSON.stringify({ name: container })}/f:env/k:${JSON.stringify({ name })}`;
  const owners = metadata.managedFields
    .filter(isJsonObject)
    .filter(
      (entry) => !entry.subresource && [...ownedPaths(entry.fieldsV1)].some((path) => path.startsWith(item)),
    );
  const own = (entry: JsonObject) => entry.manager === fieldManager && entry.operation === 'Apply';
  return owners.some(own) && owners.every(own);
}
