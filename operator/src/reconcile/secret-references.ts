/**
 * The Secrets the gateway's pods read, and one digest of their data, so that rotating a Secret changes the pod
 * template and rolls the pods (operator/README.md, "Secret rotation"). Pure.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, type JsonObject } from '../api/json.ts';

/** One Secret a pod template names, and whether every reference to it is `optional`. */
export interface SecretReference {
  name: string;
  optional: boolean;
}

/** A referenced Secret as read: its `data` (base64 values), or absent when it does not exist. */
export interface ReadSecret {
  name: string;
  data: Readonly<Record<string, string>> | undefined;
}

/**
 * Every Secret named by a `secretKeyRef` in `env` or a `secretRef` in `envFrom` of the given containers (init
 * containers included by the caller when it wants them), sorted by name. A Secret is optional only when every
 * reference to it says so: one required key is enough for the pod not to start without it.
 */
export function referencedSecrets(containers: readonly JsonObject[]): SecretReference[] {
  const byName = new Map<string, boolean>();
  const note = (ref: unknown): void => {
    if (!isJsonObject(ref) || typeof ref.name !== 'string' || ref.name === '') return;
    const optional = ref.optional === true;
    byName.set(ref.name, (byName.get(ref.name) ?? true) && optional);
  };
  for (const container of containers) {
    for (const entry of Array.isArray(container.env) ? container.env : []) {
      if (isJsonObject(entry) && isJsonObject(entry.valueFrom)) note(entry.valueFrom.secretKeyRef);
    }
    for (const source of Array.isArray(container.envFrom) ? container.envFrom : []) {
      if (isJsonObject(source)) note(source.secretRef);
    }
  }
  return [...byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, optional]) => ({ name, optional }));
}

/**
 * A SHA-256 over the referenced Secrets' data: Secrets by name, keys sorted, each value as its decoded bytes,
 * every part length-prefixed so no two different contents give the same input. A missing Secret counts as
 * absent (distinct from an empty one), so its creation changes the digest too. Only the digest leaves this
 * function: no value is logged or stored anywhere else. The first 16 hex characters are kept.
 */
export function secretsDigest(secrets: readonly ReadSecret[]): string {
  const hash = createHash('sha256');
  const part = (bytes: Buffer): void => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length);
    hash.update(bytes);
  };
  for (const secret of [...secrets].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    part(Buffer.from(secret.name, 'utf8'));
    if (secret.data === undefined) {
      part(Buffer.from('absent', 'utf8'));
      continue;
    }
    const keys = Object.keys(secret.data).sort();
    part(Buffer.from(String(keys.length), 'utf8'));
    for (const key of keys) {
      part(Buffer.from(key, 'utf8'));
      part(Buffer.from(secret.data[key] ?? '', 'base64'));
    }
  }
  return hash.digest('hex').slice(0, 16);
}
