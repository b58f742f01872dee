import { createHash } from 'node:crypto';
import { API_VERSION, KIND, LABELS, MANAGED_BY } from '../api/names.ts';

/** Hex characters of the content hash in a ConfigMap's name. */
export const HASH_LENGTH = 10;
const MAX_NAME_LENGTH = 253;

/** An env ConfigMap, in the shape of the client library's V1ConfigMap. */
export interface EnvConfigMap {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: {
    name: string;
    namespace?: string;
    labels: Record<string, string>;
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller: boolean;
      blockOwnerDeletion: boolean;
    }>;
  };
  immutable: true;
  data: Record<string, string>;
}

/**
 * A stable SHA-256 of env settings: over the entries sorted by name, so key order never matters and any
 * change of a name or a value changes it. The first HASH_LENGTH hex characters (40 bits: a collision
 * between two configurations of one AuthConfig is not a practical concern).
 */
export function envHash(env: Readonly<Record<string, string>>): string {
  const entries = Object.keys(env)
    .sort()
    .map((name) => [name, env[name]]);
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, HASH_LENGTH);
}

/** `<authConfigName>-env-<hash>`, the prefix shortened if the name would pass 253 characters. */
export function configMapName(authConfigName: string, hash: string): string {
  const suffix = `-env-${hash}`;
  const prefix = authConfigName.slice(0, MAX_NAME_LENGTH - suffix.length);
  // No '-' or '.' before the suffix; scanned from the end (`/[-.]+$/` is quadratic on a long run of them).
  let end = prefix.length;
  while (end > 0 && '-.'.includes(prefix.charAt(end - 1))) end--;
  return `${prefix.slice(0, end)}${suffix}`;
}

export interface ConfigMapOptions {
  namespace?: string;
  /** The AuthConfig's uid: makes the ConfigMap owned by it, so deleting the AuthConfig deletes it. */
  ownerUid?: string;
}

/**
 * The immutable ConfigMap holding rendered env settings, named by the hash of its content: a change of
 * settings is a new ConfigMap (and a new pod template), never an edit, so the previous one stays intact for
 * a rollback. Labels link it to its AuthConfig and carry the hash.
 */
export function configMapFor(
  authConfigName: string,
  env: Readonly<Record<string, string>>,
  options: ConfigMapOptions = {},
): EnvConfigMap {
  const hash = envHash(env);
  const data: Record<string, string> = {};
  for (const name of Object.keys(env).sort()) data[name] = env[name] ?? '';
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: configMapName(authConfigName, hash),
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      labels: {
        [LABELS.managedBy]: MANAGED_BY,
        [LABELS.authConfig]: authConfigName,
        [LABELS.configHash]: hash,
      },
      ...(options.ownerUid !== undefined
        ? {
            ownerReferences: [
              {
                apiVersion: API_VERSION,
                kind: KIND,
                name: authConfigName,
                uid: options.ownerUid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    immutable: true,
    data,
  };
}
