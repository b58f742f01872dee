import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATIONS, LABELS } from '../../operator/src/api/names.ts';
import { validateSpec } from '../../operator/src/api/validate-spec.ts';
import type { JsonObject } from '../../operator/src/api/json.ts';
import { planDeployment } from '../../operator/src/reconcile/deployment.ts';
import { configMapFor } from '../../operator/src/render/config-map.ts';
import { renderEnv } from '../../operator/src/render/env.ts';
import { findRendered, helmChart, type HelmChart } from '../../test/support/helm-chart.ts';

/**
 * The chart's gateway Deployment is the operator's target (README.md beside this file, "Who owns which field").
 * The operator's own planning (planDeployment, the pure step of its reconcile) runs on the Deployment helm
 * renders, with the example AuthConfig helm renders, in every rollout mode: the chart must render none of the
 * fields the operator writes, so `helm upgrade` has nothing of the operator's to revert, and the operator must
 * apply none of the fields the chart renders, so it owns nothing of the chart's (chart-upgrade.test.ts beside
 * this file runs both through the API server).
 */

let chart: HelmChart;
beforeAll(async () => {
  chart = await helmChart();
});
afterAll(async () => {
  await chart.close();
});

const VALUES = {
  gateway: { replicaCount: 2 },
  database: { external: { enabled: true, existingSecret: 'gatehouse-db' } },
  secrets: { existingSecret: 'gatehouse-secrets' },
  authConfig: {
    create: true,
    apiAuthMode: 'enforce',
    automaticPromotion: true,
    prometheusUrl: 'http://prometheus.monitoring.svc:9090',
  },
};

interface Container extends JsonObject {
  name: string;
  env: { name: string; value?: string; valueFrom?: JsonObject }[];
}

async function rendered() {
  const objects = await chart.template(VALUES);
  const deployment = findRendered(objects, 'Deployment', 'gh-gatehouse') as unknown as JsonObject;
  const authConfig = findRendered(objects, 'AuthConfig', 'gh-gatehouse');
  const verdict = validateSpec(authConfig.spec);
  if (!verdict.ok) throw new Error(`the example AuthConfig is invalid: ${JSON.stringify(verdict.problems)}`);
  return { deployment, spec: verdict.spec };
}

function plan(
  deployment: JsonObject,
  spec: Parameters<typeof renderEnv>[0],
  mode: 'disabled' | 'warn' | 'enforce',
) {
  const env = renderEnv(spec, mode);
  const configMap = configMapFor('gh-gatehouse', env.env, { namespace: 'gatehouse' });
  const result = planDeployment(deployment, {
    authConfigName: 'gh-gatehouse',
    ...(spec.target.container !== undefined ? { container: spec.target.container } : {}),
    configMapName: configMap.metadata.name,
    hash: configMap.metadata.labels[LABELS.configHash] ?? '',
    secretsHash: 'a1b2c3d4e5f60718',
    secretEnv: env.secretEnv,
    plainNames: Object.keys(env.env),
  });
  if (!result.ok) throw new Error(result.message);
  return { env, apply: result.applyConfiguration as unknown as Applied };
}

interface Applied {
  spec: {
    strategy?: JsonObject;
    template: { metadata: { annotations: JsonObject }; spec: { containers: Container[] } };
  };
}

function gatewayOf(deployment: JsonObject): Container {
  const containers = (deployment as unknown as Applied).spec.template.spec.containers;
  const gateway = containers.find((container) => container.name === 'gateway');
  if (!gateway) throw new Error('no gateway container');
  return gateway;
}

describe('the chart and the operator write different fields of the gateway Deployment', () => {
  it('the AuthConfig targets the chart Deployment and its gateway container', async () => {
    const { spec } = await rendered();
    expect(spec.target).toEqual({ name: 'gh-gatehouse', container: 'gateway' });
  });

  it.each(['disabled', 'warn', 'enforce'] as const)(
    'in %s: the chart renders none of the fields the operator sets',
    async (mode) => {
      const { deployment, spec } = await rendered();
      const { env, apply } = plan(deployment, spec, mode);
      const chartSpec = (deployment as unknown as Applied).spec;
      // The operator sets these; the chart must leave them absent.
      expect(apply.spec.template.metadata.annotations[ANNOTATIONS.configHash]).toBeTruthy();
      expect(chartSpec.template.metadata.annotations?.[ANNOTATIONS.configHash]).toBeUndefined();
      expect(apply.spec.strategy).toEqual({ rollingUpdate: { maxSurge: '100%' } });
      expect(chartSpec.strategy).toBeUndefined();
      expect(gatewayOf(deployment).envFrom).toBeUndefined();
      const operatorNames = new Set([...Object.keys(env.env), ...env.secretEnv.map((entry) => entry.name)]);
      expect(operatorNames.has('API_AUTH_MODE')).toBe(true);
      expect(gatewayOf(deployment).env.filter((entry) => operatorNames.has(entry.name))).toEqual([]);
      expect(gatewayOf(deployment).env.filter((entry) => entry.valueFrom !== undefined)).toEqual([]);
    },
  );

  it.each(['disabled', 'warn', 'enforce'] as const)(
    'in %s: the operator applies none of the fields the chart renders',
    async (mode) => {
      const { deployment, spec } = await rendered();
      const { env, apply } = plan(deployment, spec, mode);
      // The gateway container by name (its key), envFrom and the secret env entries: nothing else of it,
      // and no other container, so the operator never co-owns the image or anything else of the chart's.
      const containers = apply.spec.template.spec.containers;
      expect(containers.map((container) => Object.keys(container).sort())).toEqual([
        env.secretEnv.length > 0 ? ['env', 'envFrom', 'name'] : ['envFrom', 'name'],
      ]);
      expect(containers[0]?.name).toBe('gateway');
      const chartEnv = new Set(gatewayOf(deployment).env.map((entry) => entry.name));
      expect((containers[0]?.env ?? []).filter((entry) => chartEnv.has(entry.name))).toEqual([]);
      expect(Object.keys(apply.spec).sort()).toEqual(['strategy', 'template']);
      expect(Object.keys(apply.spec.template.metadata.annotations).sort()).toEqual(
        [ANNOTATIONS.configHash, ANNOTATIONS.secretsHash].sort(),
      );
    },
  );
});
