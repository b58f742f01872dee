import { ANNOTATIONS, LABELS, PLURAL } from '../../operator/src/api/names.ts';
import type { AuthConfigSpecInput } from '../../operator/src/api/types.generated.ts';
import { validateSpec } from '../../operator/src/api/validate-spec.ts';
import { configMapFor } from '../../operator/src/render/config-map.ts';
import { renderEnv } from '../../operator/src/render/env.ts';
import type { Commit } from './commit-log.ts';

/** The effective modes a rollback cycle moves between. */
export type Mode = 'warn' | 'disabled';
/** The two ways an SRE rolls back: edit the spec, or run `gatehouse rollout rollback`. */
export type Way = 'spec' | 'cli';
/**
 * `fresh`: every cycle renders a configuration never seen before, so each rollback creates its ConfigMap;
 * `reused`: every rollback points back at the disabled ConfigMap the first one created.
 */
export type ConfigReuse = 'fresh' | 'reused';

/** The AuthConfig and the Deployment it targets share this name. */
export const NAME = 'gateway';

/** The env ConfigMap a configuration renders to: its name and its content hash. */
export interface RenderedConfigMap {
  name: string;
  hash: string;
}

/**
 * The objects of the rollback benchmark in one namespace, and the predicates that recognise, among the
 * changes the API server stores, the ones a rollback cycle waits for.
 */
export class RollbackScenario {
  readonly namespace: string;
  readonly reuse: ConfigReuse;

  constructor(namespace: string, reuse: ConfigReuse) {
    this.namespace = namespace;
    this.reuse = reuse;
  }

  /**
   * The AuthConfig of cycle `index` with the gate in `mode`: local sign-in, the two gate secrets by
   * reference, promotion by hand (so no Prometheus is needed), and a base URL that changes per cycle when
   * configurations are fresh.
   */
  specFor(index: number, mode: Mode): AuthConfigSpecInput {
    const secret = (name: string) => ({
      name,
      secretKeyRef: { name: 'gatehouse-secrets', key: name.toLowerCase().replaceAll('_', '-') },
    });
    return {
      target: { name: NAME },
      authMode: 'local',
      appBaseUrl: `https://gateway-${this.reuse === 'fresh' ? index : 0}.example.com`,
      secretEnv: [secret('AUTH_SECRET'), secret('INTERNAL_API_SECRET')],
      apiAuth: { mode, rollout: { automaticPromotion: false } },
    };
  }

  /** The env ConfigMap the operator must end up with for cycle `index` in `mode` (its own pure builders). */
  configMapOf(index: number, mode: Mode): RenderedConfigMap {
    const verdict = validateSpec(this.specFor(index, mode));
    if (!verdict.ok) throw new Error(`benchmark spec invalid: ${JSON.stringify(verdict.problems)}`);
    const configMap = configMapFor(NAME, renderEnv(verdict.spec, mode).env, { namespace: this.namespace });
    return { name: configMap.metadata.name, hash: configMap.metadata.labels[LABELS.configHash] ?? '' };
  }

  private isOurs(commit: Commit, plural: string, name = NAME): boolean {
    return commit.plural === plural && commit.namespace === this.namespace && commit.name === name;
  }

  /** A stored AuthConfig whose status records `configMap` applied with the effective mode `mode`. */
  statusShows(configMap: RenderedConfigMap, mode: Mode): (commit: Commit) => boolean {
    return (commit) => {
      if (!this.isOurs(commit, PLURAL)) return false;
      const status = commit.object.status as
        { appliedHash?: string; rollout?: { effectiveMode?: string } } | undefined;
      return status?.appliedHash === configMap.hash && status.rollout?.effectiveMode === mode;
    };
  }

  /** The creation of ConfigMap `name`. */
  configMapCreated(name: string): (commit: Commit) => boolean {
    return (commit) => this.isOurs(commit, 'configmaps', name) && commit.type === 'ADDED';
  }

  /** A stored Deployment whose pod template takes its environment from ConfigMap `name`. */
  deploymentReferences(name: string): (commit: Commit) => boolean {
    return (commit) => this.isOurs(commit, 'deployments') && envFromNames(commit.object).includes(name);
  }

  /** The AuthConfig write that asks for the rollback, made the given way. */
  rollbackWrite(way: Way): (commit: Commit) => boolean {
    return (commit) => {
      if (!this.isOurs(commit, PLURAL) || commit.type !== 'MODIFIED') return false;
      const object = commit.object as {
        metadata?: { annotations?: Record<string, string> };
        spec?: { apiAuth?: { mode?: string } };
      };
      return way === 'spec'
        ? object.spec?.apiAuth?.mode === 'disabled'
        : object.metadata?.annotations?.[ANNOTATIONS.rollback] === 'true';
    };
  }
}

/** The ConfigMaps a Deployment's containers take their environment from (`envFrom`). */
export function envFromNames(deployment: Record<string, unknown>): string[] {
  const spec = deployment.spec as
    | {
        template?: {
          spec?: { containers?: Array<{ envFrom?: Array<{ configMapRef?: { name?: string } }> }> };
        };
      }
    | undefined;
  return (spec?.template?.spec?.containers ?? []).flatMap((container) =>
    (container.envFrom ?? []).flatMap((source) => source.configMapRef?.name ?? []),
  );
}
