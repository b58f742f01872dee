import { describe, expect, it } from 'vitest';
import type { ObjectKey, ReconcileResult } from '../reconcile/types.ts';
import { createOperatorMetrics } from './metrics.ts';
import { backoffDelay, keyOf, WorkQueue } from './work-queue.ts';

/** A reconcile each test finishes by hand, to hold keys "in flight". */
function controlledReconciler() {
  const running: Array<{ key: string; finish: (result?: ReconcileResult) => void; fail: () => void }> = [];
  const started: string[] = [];
  const waiters: Array<() => void> = [];
  let active = 0;
  let maxActive = 0;
  const activeKeys = new Set<string>();
  let overlapped = false;
  return {
    started,
    running,
    get maxActive() {
      return maxActive;
    },
    get overlapped() {
      return overlapped;
    },
    reconcile(key: ObjectKey): Promise<ReconcileResult> {
      const id = keyOf(key);
      if (activeKeys.has(id)) overlapped = true;
      activeKeys.add(id);
      started.push(id);
      active += 1;
      maxActive = Math.max(maxActive, active);
      for (const wake of waiters.splice(0)) wake();
      return new Promise<ReconcileResult>((resolve, reject) => {
        const done = (): void => {
          active -= 1;
          activeKeys.delete(id);
        };
        running.push({
          key: id,
          finish: (result = {}) => {
            done();
            resolve(result);
          },
          fail: () => {
            done();
            reject(new Error('boom'));
          },
        });
      });
    },
    async untilStarted(count: number): Promise<void> {
      while (started.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    take(key: string) {
      const index = running.findIndex((r) => r.key === key);
      if (index < 0) throw new Error(`${key} is not running`);
      return running.splice(index, 1)[0] as (typeof running)[number];
    },
  };
}

const a = { namespace: 'ns', name: 'a' };
const b = { namespace: 'ns', name: 'b' };
const c = { namespace: 'ns', name: 'c' };

describe('WorkQueue', () => {
  it('runs a key once at a time; a key added while in flight runs exactly once more afterwards', async () => {
    const fake = controlledReconciler();
    const queue = new WorkQueue({
      name: 't',
      reconcile: (k) => fake.reconcile(k),
      metrics: createOperatorMetrics(),
    });
    queue.add(a);
    await fake.untilStarted(1);
    queue.add(a);
    queue.add(a);
    queue.add(a);
    expect(fake.started).toEqual(['ns/a']);
    fake.take('ns/a').finish();
    await fake.untilStarted(2);
    fake.take('ns/a').finish();
    await queue.shutdown();
    expect(fake.started).toEqual(['ns/a', 'ns/a']);
    expect(fake.overlapped).toBe(false);
  });

  it('bounds the keys reconciled in parallel and reports the depth', async () => {
    const fake = controlledReconciler();
    const metrics = createOperatorMetrics();
    const queue = new WorkQueue({ name: 't', reconcile: (k) => fake.reconcile(k), metrics, concurrency: 2 });
    queue.add(a);
    queue.add(b);
    queue.add(c);
    await fake.untilStarted(2);
    expect(queue.depth).toBe(1);
    expect((await metrics.queueDepth.get()).values[0]?.value).toBe(1);
    fake.take('ns/a').finish();
    await fake.untilStarted(3);
    expect(fake.maxActive).toBe(2);
    fake.take('ns/b').finish();
    fake.take('ns/c').finish();
    await queue.shutdown();
  });

  it('shutdown waits for reconciles in flight and drops queued keys', async () => {
    const fake = controlledReconciler();
    const queue = new WorkQueue({
      name: 't',
      reconcile: (k) => fake.reconcile(k),
      metrics: createOperatorMetrics(),
      concurrency: 1,
    });
    queue.add(a);
    queue.add(b);
    await fake.untilStarted(1);
    let stopped = false;
    const stopping = queue.shutdown().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    fake.take('ns/a').finish();
    await stopping;
    expect(fake.started).toEqual(['ns/a']);
  });
});

describe('backoffDelay', () => {
  const options = { baseDelayMs: 100, maxDelayMs: 1000 };
  it('doubles per failure, is capped, and jitters between half and all of the delay', () => {
    expect(backoffDelay(1, options, () => 1)).toBe(100);
    expect(backoffDelay(1, options, () => 0)).toBe(50);
    expect(backoffDelay(3, options, () => 1)).toBe(400);
    expect(backoffDelay(10, options, () => 1)).toBe(1000);
    expect(backoffDelay(1000, options, () => 0)).toBe(500);
  });
});
