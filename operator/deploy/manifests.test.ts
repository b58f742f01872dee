import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { authConfigSchema } from '../src/api/crd.ts';
import { GROUP, PLURAL } from '../src/api/names.ts';
import { admit } from '../../test/support/operator/cel-admission.ts';
import { validateSpec } from '../src/api/validate-spec.ts';
import { configMapFor } from '../src/render/config-map.ts';
import { renderEnv } from '../src/render/env.ts';
import { LEASE_NAME } from '../src/runtime/operator.ts';

/**
 * The content of the manifests of operator/deploy (docs/adr/0007-operator.md, "Requirements", "Manifests") and of
 * the example AuthConfig: least privilege, the pod's hardening, the example's admission. That kubectl installs
 * them is install.test.ts.
 */

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [key: string]: unknown;
}

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

async function load(file: string): Promise<Manifest[]> {
  const text = await readFile(new URL(file, import.meta.url), 'utf8');
  return parseAllDocuments(text).map((document) => {
    expect(document.errors).toEqual([]);
    return document.toJS() as Manifest;
  });
}

function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

/** Every (group, resource, verb) a set of rules grants, as strings. */
function grants(rules: PolicyRule[]): string[] {
  return rules
    .flatMap((rule) =>
      rule.apiGroups.flatMap((group) =>
        rule.resources.flatMap((resource) =>
          rule.verbs.map(
            (verb) =>
              `${group || 'core'}/${resource}:${verb}${rule.resourceNames ? `[${rule.resourceNames.join()}]` : ''}`,
          ),
        ),
      ),
    )
    .sort();
}

describe('examples/authconfig.yaml', () => {
  it('is admitted by the CRD schema and its CEL rules, and passes validateSpec', async () => {
    const [example] = await load('../examples/authconfig.yaml');
    expect(example?.apiVersion).toBe(`${GROUP}/v1alpha1`);
    expect(admit(authConfigSchema, example)).toMatchObject({ ok: true });
    const verdict = validateSpec(example?.spec);
    expect(verdict).toMatchObject({ ok: true });
    if (!verdict.ok) return;
    // And it renders: the gate starts disabled, the rollout moves it.
    const { env, secretEnv } = renderEnv(verdict.spec, 'disabled');
    expect(env).toMatchObject({
      AUTH_MODE: 'local+oidc',
      API_AUTH_MODE: 'disabled',
      WEBAUTHN_RP_ID: 'example.com',
    });
    expect(secretEnv.map((entry) => entry.name)).toEqual([
      'AUTH_SECRET',
      'DATABASE_URL',
      'INTERNAL_API_SECRET',
      'OIDC_CLIENT_SECRET',
    ]);
    expect(configMapFor('gateway', env).metadata.name).toMatch(/^gateway-env-[0-9a-f]{10}$/);
  });
});

describe('rbac.yaml (least privilege)', () => {
  it('grants exactly what the reconcile needs cluster-wide, and only reads on Secrets', async () => {
    const manifests = await load('./rbac.yaml');
    const role = find(manifests, 'ClusterRole', 'gatehouse-operator') as Manifest & { rules: PolicyRule[] };
    expect(grants(role.rules)).toEqual(
      [
        `${GROUP}/${PLURAL}:get`,
        `${GROUP}/${PLURAL}:list`,
        `${GROUP}/${PLURAL}:watch`,
        `${GROUP}/${PLURAL}:patch`,
        `${GROUP}/${PLURAL}:update`,
        `${GROUP}/${PLURAL}/status:get`,
        `${GROUP}/${PLURAL}/status:patch`,
        `${GROUP}/${PLURAL}/status:update`,
        'core/configmaps:create',
        'core/configmaps:get',
        'core/configmaps:list',
        'core/configmaps:delete',
        'core/secrets:get',
        'core/secrets:list',
        'core/secrets:watch',
        'apps/deployments:get',
        'apps/deployments:list',
        'apps/deployments:watch',
        'apps/deployments:patch',
        'core/events:create',
        'core/events:patch',
        'events.k8s.io/events:create',
        'events.k8s.io/events:patch',
      ].sort(),
    );
    const all = JSON.stringify(role.rules);
    expect(all).not.toContain('*');
    const secretRules = role.rules.filter((rule) => rule.resources.includes('secrets'));
    expect(secretRules.flatMap((rule) => rule.verbs).sort()).toEqual(['get', 'list', 'watch']);
  });

  it('confines the leader-election Lease to the operator namespace and its own name', async () => {
    const manifests = await load('./rbac.yaml');
    const role = find(manifests, 'Role', 'gatehouse-operator-leader-election') as Manifest & {
      rules: PolicyRule[];
    };
    expect(role.metadata.namespace).toBe('gatehouse-system');
    expect(grants(role.rules)).toEqual(
      [
        'coordination.k8s.io/leases:create',
        `coordination.k8s.io/leases:get[${LEASE_NAME}]`,
        `coordination.k8s.io/leases:update[${LEASE_NAME}]`,
      ].sort(),
    );
  });

  it('binds both roles to the operator ServiceAccount', async () => {
    const manifests = await load('./rbac.yaml');
    const account = find(manifests, 'ServiceAccount', 'gatehouse-operator');
    for (const [kind, name] of [
      ['ClusterRoleBinding', 'gatehouse-operator'],
      ['RoleBinding', 'gatehouse-operator-leader-election'],
    ] as const) {
      expect(find(manifests, kind, name)).toMatchObject({
        subjects: [
          { kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace },
        ],
      });
    }
  });
});

describe('operator.yaml', () => {
  it('runs `gatehouse operator` as non-root with probes, resources and its ServiceAccount', async () => {
    const [deployment] = await load('./operator.yaml');
    const pod = (deployment as unknown as { spec: { template: { spec: Record<string, unknown> } } }).spec
      .template.spec;
    expect(pod).toMatchObject({
      serviceAccountName: 'gatehouse-operator',
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    });
    const [container] = pod.containers as Array<Record<string, unknown>>;
    expect(container).toMatchObject({
      image: 'gatehouse:latest',
      command: ['node', 'app/cli.ts', 'operator'],
      livenessProbe: { httpGet: { path: '/healthz' } },
      readinessProbe: { httpGet: { path: '/readyz' } },
      resources: {
        requests: { cpu: expect.any(String) as unknown, memory: expect.any(String) as unknown },
        limits: { memory: expect.any(String) as unknown },
      },
      securityContext: {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      },
    });
  });
});
