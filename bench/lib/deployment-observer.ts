import { performance } from 'node:perf_hooks';
import { Watch, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';

/**
 * Follows one Deployment through a watch, as any client of the API server would, and tells when its pod
 * template references a given ConfigMap through `envFrom`: the moment the operator's change is visible to
 * the Deployment controller. Event-driven, no polling.
 */
export class DeploymentObserver {
  private configMaps: readonly string[] = [];
  private readonly waiters = new Set<() => void>();
  private abort: AbortController | undefined;
  private ended: Error | undefined;

  private readonly kubeConfig: KubeConfig;
  private readonly namespace: string;
  private readonly name: string;

  constructor(kubeConfig: KubeConfig, namespace: string, name: string) {
    this.kubeConfig = kubeConfig;
    this.namespace = namespace;
    this.name = name;
  }

  async start(): Promise<void> {
    this.abort = await new Watch(this.kubeConfig).watch(
      `/apis/apps/v1/namespaces/${this.namespace}/deployments`,
      { fieldSelector: `metadata.name=${this.name}` },
      (type: string, object: V1Deployment) => {
        if (type !== 'ADDED' && type !== 'MODIFIED') return;
        const containers = object.spec?.template.spec?.containers ?? [];
        this.configMaps = containers.flatMap((container) =>
          (container.envFrom ?? []).flatMap((source) => source.configMapRef?.name ?? []),
        );
        for (const wake of [...this.waiters]) wake();
      },
      (error: unknown) => {
        // A benchmark's watch must not end silently: a waiter would then time out with a wrong reason.
        const reason = error instanceof Error ? error.message : 'closed by the server';
        this.ended = new Error(`the Deployment watch ended: ${reason}`);
        for (const wake of [...this.waiters]) wake();
      },
    );
  }

  /**
   * Resolves with performance.now() at the watch event that showed the pod template referencing
   * `configMap` (at once when it already does). Register before the write that causes it.
   */
  until(configMap: string, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.ended) {
          finish();
          reject(this.ended);
        } else if (this.configMaps.includes(configMap)) {
          finish();
          resolve(performance.now());
        }
      };
      const finish = (): void => {
        this.waiters.delete(check);
        clearTimeout(timer);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`the Deployment did not reference ConfigMap ${configMap} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Ends the watch; whatever still waits is rejected (so no timer outlives the benchmark). */
  stop(): void {
    this.ended ??= new Error('stopped');
    this.abort?.abort();
    for (const wake of [...this.waiters]) wake();
  }
}
