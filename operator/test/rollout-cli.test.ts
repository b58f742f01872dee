/**
 * `gatehouse rollout status|promote|pause|resume|rollback` (operator/README.md, "gatehouse rollout"): `status`
 * shows the phase, the figures and the history, and `rollback` works end to end. The real CLI as its own process,
 * talking to the fake Kubernetes API server through a kubeconfig file, as an SRE's shell would. The end-to-end
 * case drives the real reconciler (a manual clock, a fake analysis source) between CLI calls.
 *
 * Each test works in namespaces of its own, deleted when it ends, and no CLI process outlives its test. With
 * KUBECONFIG set the suite runs against that cluster instead (it installs the CRD; the context-namespace test
 * writes a copy of that kubeconfig with its namespace); the checks on the fake's request log then skip.
 */
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  type V1Deployment,
} from '@kubernetes/client-node';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../gateway/src/clock.ts';
import type { AnalysisSource } from '../src/prometheus/types.ts';
import { GROUP, KIND, LABELS, VERSION } from '../src/api/names.ts';
import { gateSecrets, minimalSpec, specWith } from '../../test/support/operator/fixtures.ts';
import type { AuthConfigSpecInput, AuthConfigStatus } from '../src/api/types.generated.ts';
import { ANNOTATIONS, createReconciler } from '../src/reconcile/index.ts';
import type { TestCluster } from '../../test/support/fake-kube/index.ts';
import {
  AUTHCONFIG_RESOURCE as AUTHCONFIG,
  startOperatorCluster,
  testNamespace,
} from '../../test/support/operator-cluster.ts';
import { endsWithTest, spawnGateway } from '../../test/support/process.ts';

let cluster: TestCluster;
let kc: KubeConfig;
let custom: CustomObjectsApi;
let apps: AppsV1Api;
let core: CoreV1Api;
let dir: string;
let kubeconfigPath: string;

beforeAll(async () => {
  cluster = await startOperatorCluster();
  kc = cluster.kc;
  custom = kc.makeApiClient(CustomObjectsApi);
  apps = kc.makeApiClient(AppsV1Api);
  core = kc.makeApiClient(CoreV1Api);
  dir = await mkdtemp(join(tmpdir(), 'gatehouse-rollout-cli-'));
  kubeconfigPath = process.env.KUBECONFIG ?? join(dir, 'config');
  if (!process.env.KUBECONFIG) await writeFile(kubeconfigPath, kc.exportConfig());
});

afterAll(async () => {
  await cluster.close();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `gatehouse rollout ARGS` as a process with only KUBECONFIG set (the suite's kubeconfig unless given). */
async function rollout(...args: string[]): Promise<Run> {
  return rolloutWith(kubeconfigPath, ...args);
}

async function rolloutWith(kubeconfig: string, ...args: string[]): Promise<Run> {
  const child = endsWithTest(spawnGateway({ args: ['rollout', ...args], env: { KUBECONFIG: kubeconfig } }));
  child.child.stdin.end();
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

/** The value of one field of the status block ("Label:   value"). */
function field(output: string, label: string): string | undefined {
  const line = output.split('\n').find((item) => item.startsWith(`${label}:`));
  return line?.slice(label.length + 1).trimStart();
}

/** A namespace of the running test's own, deleted when it ends. */
function freshNamespace(): Promise<string> {
  return testNamespace(kc, 'rollout-cli');
}

/** A kubeconfig file for the same cluster and user whose current context defaults to `namespace`. */
async function kubeconfigWithNamespace(namespace: string): Promise<string> {
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: kc.clusters,
    users: kc.users,
    contexts: kc.contexts.map((context) =>
      context.name === kc.currentContext ? { ...context, namespace } : context,
    ),
    currentContext: kc.currentContext,
  });
  const path = join(dir, `config-${namespace}`);
  await writeFile(path, copy.exportConfig(), { mode: 0o600 });
  return path;
}

const rolloutSpec = (mode: 'disabled' | 'warn' | 'enforce' = 'enforce'): AuthConfigSpecInput =>
  specWith({
    secretEnv: gateSecrets,
    apiAuth: {
      mode,
      rollout: {
        minGatedRequests: 100,
        maxWouldDenyRatio: 0.01,
        analysisInterval: '5m',
        prometheus: { url: 'http://prometheus.test:9090' },
      },
    },
  });

async function createAuthConfig(
  namespace: string,
  name: string,
  spec: AuthConfigSpecInput,
  annotations?: Record<string, string>,
): Promise<void> {
  await custom.createNamespacedCustomObject({
    ...AUTHCONFIG,
    namespace,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: KIND,
      metadata: { name, ...(annotations ? { annotations } : {}) },
      spec,
    },
  });
}

interface Stored {
  metadata: { resourceVersion: string; generation: number; annotations?: Record<string, string> };
  spec: { apiAuth?: { rollout?: { automaticPromotion?: boolean } } };
  status?: AuthConfigStatus;
}

async function read(namespace: string, name: string): Promise<Stored> {
  return (await custom.getNamespacedCustomObject({ ...AUTHCONFIG, namespace, name })) as Stored;
}

/** Writes a status as the operator would have (through the status subresource). */
async function seedStatus(namespace: string, name: string, status: AuthConfigStatus): Promise<void> {
  const object = await read(namespace, name);
  await custom.replaceNamespacedCustomObjectStatus({
    ...AUTHCONFIG,
    namespace,
    name,
    body: { ...object, status },
  });
}

const condition = (
  type: 'Ready' | 'Promotable' | 'Degraded' | 'Progressing' | 'Phase3Ready',
  status: 'True' | 'False',
  reason: string,
  message: string,
) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2026-01-02T00:10:00.000Z',
  observedGeneration: 1,
});

/** An AuthConfig in enforce after a warn soak, a fallback and a second promotion. */
const enforceStatus: AuthConfigStatus = {
  observedGeneration: 1,
  // As the operator writes it: the 10 hex digits of the env ConfigMap's hash (the CRD refuses anything else).
  appliedHash: '0a1b2c3d4e',
  conditions: [
    condition('Ready', 'True', 'Applied', 'Deployment gatehouse runs with ConfigMap gateway-env-0a1b2c3d4e'),
    condition('Degraded', 'False', 'Healthy', 'the last check passed'),
  ],
  rollout: {
    effectiveMode: 'enforce',
    since: '2026-01-03T00:10:00.000Z',
    phase: 2,
    consecutiveBadChecks: 1,
    consecutiveQueryErrors: 0,
    lastAnalysis: {
      ok: true,
      at: '2026-01-03T00:15:00.000Z',
      mode: 'enforce',
      gatedRequests: 4321,
      failureRatio: 0.0125,
    },
    history: [
      {
        at: '2026-01-01T00:00:00.000Z',
        from: 'disabled',
        to: 'warn',
        reason: 'DesiredModeRaised',
        figures: {},
      },
      {
        at: '2026-01-02T00:10:00.000Z',
        from: 'warn',
        to: 'enforce',
        reason: 'Promoted',
        figures: { gatedRequests: 5000, failureRatio: 0.001 },
      },
      {
        at: '2026-01-02T06:00:00.000Z',
        from: 'enforce',
        to: 'warn',
        reason: 'FallbackToWarn',
        figures: { gatedRequests: 800, failureRatio: 0.2, consecutiveBadChecks: 3 },
      },
      {
        at: '2026-01-03T00:10:00.000Z',
        from: 'warn',
        to: 'enforce',
        reason: 'Promoted',
        figures: { gatedRequests: 6000, failureRatio: 0 },
      },
    ],
  },
};

const warnStatus: AuthConfigStatus = {
  observedGeneration: 1,
  conditions: [condition('Promotable', 'False', 'SoakInProgress', 'warn has soaked 1h of the minimum 1d')],
  rollout: {
    effectiveMode: 'warn',
    since: new Date(Date.now() - 3600_000).toISOString(),
    phase: 1,
    consecutiveBadChecks: 0,
    consecutiveQueryErrors: 0,
    history: [],
  },
};

describe('gatehouse rollout status', () => {
  it('shows the modes, the phase, the last analysis figures, the conditions and the history as a table', async () => {
    const namespace = await freshNamespace();
    await createAuthConfig(namespace, 'gateway', rolloutSpec());
    await seedStatus(namespace, 'gateway', enforceStatus);

    const run = await rollout('status', 'gateway', '-n', namespace);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(field(out, 'AuthConfig')).toBe(`${namespace}/gateway (generation 1, observed)`);
    expect(field(out, 'Desired mode')).toBe('enforce (spec.apiAuth.mode); automatic promotion on');
    expect(field(out, 'Effective mode')).toBe('enforce (phase 2 of 3: enforce)');
    // The two largest units that are not zero: 326d4h, or 326d28m within the hour after 00:10.
    expect(out).toMatch(/^Since: +2026-01-03T00:10:00\.000Z \(\d+d(?:\d+[hms])? ago\)$/m);
    expect(field(out, 'Checks')).toBe('1 bad in a row, 0 query errors in a row');
    expect(out).toMatch(
      /^Last analysis: +2026-01-03T00:15:00\.000Z \(.+ ago\), in enforce: 4321 gated requests, failure ratio 1\.25%$/m,
    );
    expect(field(out, 'Requests')).toBe('none');
    expect(out).toMatch(/^ {2}TYPE +STATUS +REASON +MESSAGE$/m);
    expect(out).toMatch(/^ {2}Degraded +False +Healthy +the last check passed$/m);

    // The history: one row per transition, columns aligned under their headers.
    const lines = out.split('\n');
    const header = lines.findIndex((line) => /^ {2}TIME +FROM +TO +REASON +FIGURES$/.test(line));
    expect(header).toBeGreaterThan(0);
    const rows = lines.slice(header + 1, header + 5);
    expect(rows).toEqual([
      expect.stringMatching(/^ {2}2026-01-01T00:00:00\.000Z +disabled +warn +DesiredModeRaised +-$/),
      expect.stringMatching(
        /^ {2}2026-01-02T00:10:00\.000Z +warn +enforce +Promoted +5000 gated requests, would-deny ratio 0\.1%$/,
      ),
      expect.stringMatching(
        /^ {2}2026-01-02T06:00:00\.000Z +enforce +warn +FallbackToWarn +800 gated requests, failure ratio 20%, 3 bad checks$/,
      ),
      expect.stringMatching(/^ {2}2026-01-03T00:10:00\.000Z +warn +enforce +Promoted +6000 gated requests/),
    ]);
    const headerLine = lines[header] ?? '';
    for (const column of ['FROM', 'TO ', 'REASON', 'FIGURES']) {
      const at = headerLine.indexOf(column);
      for (const row of rows) expect(row.charAt(at - 1)).toBe(' ');
      for (const row of rows) expect(row.charAt(at)).not.toBe(' ');
    }
  });

  it('prints the same view as JSON with --output json', async () => {
    const namespace = await freshNamespace();
    await createAuthConfig(namespace, 'gateway', rolloutSpec(), { [ANNOTATIONS.rollback]: 'true' });
    await seedStatus(namespace, 'gateway', enforceStatus);

    const run = await rollout('status', 'gateway', '-n', namespace, '--output', 'json');
    expect(run.code).toBe(0);
    const view = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(view).toMatchObject({
      namespace,
      name: 'gateway',
      desiredMode: 'enforce',
      automaticPromotion: true,
      rollbackRequested: true,
      rollout: {
        effectiveMode: 'enforce',
        phase: 2,
        lastAnalysis: { gatedRequests: 4321, failureRatio: 0.0125 },
        history: expect.arrayContaining([expect.objectContaining({ reason: 'FallbackToWarn' })]) as unknown,
      },
    });
  });

  it('says when the operator has not reported yet, and uses the context namespace without -n', async () => {
    const namespace = await freshNamespace();
    const kubeconfig = await kubeconfigWithNamespace(namespace);
    await createAuthConfig(namespace, 'fresh', minimalSpec);
    const run = await rolloutWith(kubeconfig, 'status', 'fresh');
    expect(run.code).toBe(0);
    expect(field(run.stdout, 'AuthConfig')).toBe(`${namespace}/fresh (generation 1, not observed yet)`);
    expect(field(run.stdout, 'Desired mode')).toBe('disabled (spec.apiAuth.mode); automatic promotion on');
    expect(run.stdout).toContain('not reported yet');
    expect(run.stdout).toContain('History:\n  no transitions yet\n');
  });

  it('exits 1 with a message for an unknown AuthConfig, and 64 on bad usage', async () => {
    const namespace = await freshNamespace();
    const missing = await rollout('status', 'nope', '-n', namespace);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toBe(`gatehouse rollout: AuthConfig ${namespace}/nope not found\n`);

    const noName = await rollout('status');
    expect(noName.code).toBe(64);
    expect(noName.stderr).toContain('status needs the AuthConfig NAME');
    expect((await rollout('frobnicate', 'gateway')).code).toBe(64);
    expect((await rollout('pause', 'gateway', '--clear')).code).toBe(64);
    expect((await rollout('status', 'gateway', '-o', 'yaml')).code).toBe(64);
  });
});

describe('gatehouse rollout pause|resume|promote|rollback', () => {
  it('pause and resume turn spec.apiAuth.rollout.automaticPromotion off and on with a merge patch', async () => {
    const namespace = await freshNamespace();
    await createAuthConfig(namespace, 'gateway', rolloutSpec());

    const paused = await rollout('pause', 'gateway', '-n', namespace);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toContain(`Automatic promotion is off for ${namespace}/gateway`);
    let stored = await read(namespace, 'gateway');
    expect(stored.spec.apiAuth?.rollout?.automaticPromotion).toBe(false);
    // The rest of the rollout policy is left as it was (a merge, not a replace).
    expect(stored.spec.apiAuth?.rollout).toMatchObject({ minGatedRequests: 100, analysisInterval: '5m' });
    expect((await rollout('status', 'gateway', '-n', namespace)).stdout).toContain('automatic promotion off');

    const again = await rollout('pause', 'gateway', '-n', namespace);
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toContain('already off');

    const resumed = await rollout('resume', 'gateway', '-n', namespace);
    expect(resumed.code).toBe(0);
    stored = await read(namespace, 'gateway');
    expect(stored.spec.apiAuth?.rollout?.automaticPromotion).toBe(true);

    if (cluster.fake) {
      const patches = cluster.fake.requests.filter(
        (request) =>
          request.method === 'PATCH' && request.path.includes(`/namespaces/${namespace}/authconfigs/`),
      );
      expect(patches).toHaveLength(2);
      for (const patch of patches) expect(patch.contentType).toBe('application/merge-patch+json');
    }
  });

  it('promote sets the approval annotation to now in warn, and refuses outside warn', async () => {
    const namespace = await freshNamespace();
    await createAuthConfig(namespace, 'gateway', rolloutSpec());
    await seedStatus(namespace, 'gateway', warnStatus);

    const before = Date.now();
    const run = await rollout('promote', 'gateway', '-n', namespace);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Approved warn → enforce for ${namespace}/gateway`);
    expect(run.stdout).toContain('Promotable now: False (SoakInProgress)');
    const approvedAt = (await read(namespace, 'gateway')).metadata.annotations?.[ANNOTATIONS.promote] ?? '';
    expect(Date.parse(approvedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(approvedAt)).toBeLessThanOrEqual(Date.now());
    expect((await rollout('status', 'gateway', '-n', namespace)).stdout).toContain(
      `promotion approved at ${approvedAt}`,
    );

    const other = await freshNamespace();
    await createAuthConfig(other, 'gateway', rolloutSpec());
    await seedStatus(other, 'gateway', enforceStatus);
    const refused = await rollout('promote', 'gateway', '-n', other);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('runs API_AUTH_MODE=enforce: promote approves warn → enforce');
    expect((await read(other, 'gateway')).metadata.annotations?.[ANNOTATIONS.promote]).toBeUndefined();
  });

  it('rollback sets the rollback annotation and --clear removes it', async () => {
    const namespace = await freshNamespace();
    await createAuthConfig(namespace, 'gateway', rolloutSpec());
    const generation = (await read(namespace, 'gateway')).metadata.generation;

    const run = await rollout('rollback', 'gateway', '-n', namespace);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('applies API_AUTH_MODE=disabled in its next reconcile, at once');
    let stored = await read(namespace, 'gateway');
    expect(stored.metadata.annotations?.[ANNOTATIONS.rollback]).toBe('true');
    expect(stored.metadata.generation).toBe(generation); // an annotation, not a spec change

    const json = await rollout('rollback', 'gateway', '-n', namespace, '--clear', '-o', 'json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ action: 'rollback --clear', changed: true });
    stored = await read(namespace, 'gateway');
    expect(stored.metadata.annotations?.[ANNOTATIONS.rollback]).toBeUndefined();
  });
});

describe('rollback end to end', () => {
  it('a reconciler brings the AuthConfig to warn; `rollback` makes the next reconcile apply disabled', async () => {
    const namespace = await freshNamespace();
    await apps.createNamespacedDeployment({ namespace, body: gatewayDeployment() });
    const clock = createManualClock(Date.UTC(2026, 0, 1));
    const analysis: AnalysisSource = {
      analyse: () => Promise.resolve({ ok: true, gatedRequests: 5000, failureRatio: 0 }),
    };
    const reconciler = createReconciler({ kubeConfig: kc, clock, analysis });
    const reconcile = () => reconciler.reconcile({ namespace, name: 'gateway' });
    const apiAuthMode = async (): Promise<string | undefined> => {
      const target = await apps.readNamespacedDeployment({ namespace, name: 'gatehouse' });
      const container = target.spec?.template.spec?.containers.find((item) => item.name === 'gateway');
      const mapName = container?.envFrom?.find((source) => source.configMapRef)?.configMapRef?.name;
      const maps = await core.listNamespacedConfigMap({
        namespace,
        labelSelector: `${LABELS.authConfig}=gateway`,
      });
      return maps.items.find((item) => item.metadata?.name === mapName)?.data?.API_AUTH_MODE;
    };

    await createAuthConfig(namespace, 'gateway', rolloutSpec());
    await reconcile();
    expect(await apiAuthMode()).toBe('warn');
    clock.advance(5 * 60_000);
    await reconcile(); // an analysis in warn: the soak is not over, it stays
    let status = await rollout('status', 'gateway', '-n', namespace);
    expect(field(status.stdout, 'Effective mode')).toBe('warn (phase 1 of 3: warn)');
    expect(status.stdout).toMatch(/Last analysis: .* in warn: 5000 gated requests, would-deny ratio 0%/);

    const rollback = await rollout('rollback', 'gateway', '-n', namespace);
    expect(rollback.code).toBe(0);
    clock.advance(1000);
    await reconcile();
    expect(await apiAuthMode()).toBe('disabled');

    status = await rollout('status', 'gateway', '-n', namespace);
    expect(status.code).toBe(0);
    expect(field(status.stdout, 'Effective mode')).toBe('disabled (phase 0 of 3: disabled)');
    expect(field(status.stdout, 'Requests')).toBe(
      `rollback to disabled (${ANNOTATIONS.rollback}; lift with gatehouse rollout rollback gateway --clear)`,
    );
    expect(status.stdout).toMatch(/^ {2}2026-01-01T00:00:00\.000Z +disabled +warn +DesiredModeRaised +-$/m);
    expect(status.stdout).toMatch(/^ {2}2026-01-01T00:05:01\.000Z +warn +disabled +RollbackRequested +-$/m);

    // Lifting the rollback resumes the rollout from disabled: warn again in the next reconcile.
    expect((await rollout('rollback', 'gateway', '-n', namespace, '--clear')).stdout).toContain(
      'the rollout resumes from disabled towards enforce',
    );
    clock.advance(1000);
    await reconcile();
    expect(await apiAuthMode()).toBe('warn');
  });
});

/** The gateway Deployment the AuthConfigs target. */
function gatewayDeployment(): V1Deployment {
  return {
    metadata: { name: 'gatehouse', labels: { app: 'gatehouse' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'gatehouse' } },
      template: {
        metadata: { labels: { app: 'gatehouse' } },
        spec: { containers: [{ name: 'gateway', image: 'gatehouse:1' }] },
      },
    },
  };
}
