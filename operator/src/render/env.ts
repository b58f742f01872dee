import { plainVariables, secretVariables } from '../api/env-mapping.ts';
import { isSecretVariable } from '../api/gateway-variables.ts';
import type { ApiAuthMode, AuthConfigSpec } from '../api/types.generated.ts';

/** A container env entry taken from a Secret key (the shape of the client library's V1EnvVar). */
export interface SecretEnvEntry {
  name: string;
  valueFrom: { secretKeyRef: { name: string; key: string } };
}

export interface RenderedEnv {
  /** The plain settings, keys sorted: the env ConfigMap's data. Never a secret. */
  env: Record<string, string>;
  /** The secret settings as env entries with `secretKeyRef`, sorted by name. */
  secretEnv: SecretEnvEntry[];
}

/**
 * The gateway's environment for a validated spec (operator/README.md, "Rendering"), with API_AUTH_MODE set to the
 * rollout's effective mode rather than the mode the SRE asked for. Plain settings go to a ConfigMap; secrets stay
 * in their Secrets and are referenced, so the operator never reads a secret value. A variable the gateway
 * declares secret is never put in the plain map, whatever the spec says (validateSpec reports it).
 *
 * Pure and deterministic: the same spec and mode give the same result, in the same order.
 */
export function renderEnv(spec: AuthConfigSpec, effectiveApiAuthMode: ApiAuthMode): RenderedEnv {
  const plain = plainVariables(spec, effectiveApiAuthMode);
  const secrets = secretVariables(spec);
  const env: Record<string, string> = {};
  for (const name of [...plain.keys()].sort()) {
    if (isSecretVariable(name) || secrets.has(name)) continue;
    env[name] = plain.get(name) ?? '';
  }
  const secretEnv = [...secrets.keys()].sort().map((name): SecretEnvEntry => {
    const ref = secrets.get(name);
    if (!ref) throw new Error(`unreachable: no reference for ${name}`);
    return { name, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } };
  });
  return { env, secretEnv };
}
