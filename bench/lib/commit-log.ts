import { performance } from 'node:perf_hooks';
import type { FakeKube } from '../../test/support/fake-kube/index.ts';
import type { ChangeEvent, KubeObject } from '../../test/support/fake-kube/types.ts';

/** The parts of a stored change the benchmarks read. */
export interface Commit {
  /** performance.now() in this process when the fake API server stored the change. */
  at: number;
  type: string;
  plural: string;
  namespace: string;
  name: string;
  object: KubeObject;
}

/**
 * Every change the in-process fake API server stores, timestamped as it is stored: in the same synchronous
 * step that hands it to the open watches, before the response to the write is sent. A benchmark that runs
 * the fake in its own process reads the server's side of the clock here instead of guessing it from a
 * client.
 *
 * This hooks the fake's object store (the same feed its watches are served from); it is the one place to
 * adapt should the fake's internals change.
 */
export class CommitLog {
  private readonly waiters = new Set<(commit: Commit | Error) => void>();
  private readonly unsubscribe: () => void;

  constructor(fake: FakeKube) {
    this.unsubscribe = fake.store.subscribe((event: ChangeEvent) => {
      const commit: Commit = {
        at: performance.now(),
        type: event.type,
        plural: event.resource.plural,
        namespace: event.object.metadata.namespace ?? '',
        name: event.object.metadata.name ?? '',
        object: event.object,
      };
      for (const wake of [...this.waiters]) wake(commit);
    });
  }

  /**
   * The first change stored from now on that `matches`. Register before making the write it waits for.
   * Rejects after `timeoutMs`, or when the log is closed.
   */
  next(matches: (commit: Commit) => boolean, timeoutMs: number, what: string): Promise<Commit> {
    return new Promise((resolve, reject) => {
      const settle = (commit: Commit | Error): void => {
        this.waiters.delete(check);
        clearTimeout(timer);
        if (commit instanceof Error) reject(commit);
        else resolve(commit);
      };
      const check = (commit: Commit | Error): void => {
        if (commit instanceof Error || matches(commit)) settle(commit);
      };
      const timer = setTimeout(
        () => settle(new Error(`not stored within ${timeoutMs} ms: ${what}`)),
        timeoutMs,
      );
      this.waiters.add(check);
    });
  }

  /** Stops listening; whatever still waits is rejected (so no timer outlives the benchmark). */
  close(): void {
    this.unsubscribe();
    const closed = new Error('the commit log was closed');
    for (const wake of [...this.waiters]) wake(closed);
  }
}
