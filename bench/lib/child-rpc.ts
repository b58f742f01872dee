import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';

/**
 * Requests from a benchmark to the helper processes it forks (socket clients, a bare LISTEN client): one
 * request at a time or many, each answered once, over the IPC channel with the structured-clone
 * serialisation (typed arrays of samples travel without JSON). A child exits when its parent goes away,
 * so a benchmark that dies leaves no client behind.
 */
interface Request {
  id: number;
  kind: string;
  body: unknown;
}

type Answer = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export interface BenchChild {
  name: string;
  pid: number;
  /** Sends `kind` with `body`; resolves with the child's answer, rejects with its error or if it exits. */
  request<T>(kind: string, body?: unknown): Promise<T>;
  /** Asks the child to close (request `close`), then kills it if it has not exited after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
}

/** Forks `script` with this process's Node (Node 24: the npm scripts' own), output to `logFile`. */
export function forkChild(options: { name: string; script: string; logFile: string }): BenchChild {
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = openSync(options.logFile, 'w');
  const child: ChildProcess = fork(options.script, [], {
    execPath: process.execPath,
    stdio: ['ignore', log, log, 'ipc'],
    serialization: 'advanced',
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  let nextId = 1;
  child.on('message', (message: Answer) => {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) waiter?.resolve(message.result);
    else waiter?.reject(new Error(`${options.name}: ${message.error}`));
  });
  child.once('exit', (code, signal) => {
    const gone = new Error(`${options.name} exited (${signal ?? code}); see ${options.logFile}`);
    for (const waiter of pending.values()) waiter.reject(gone);
    pending.clear();
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  return {
    name: options.name,
    pid: child.pid as number,
    request<T>(kind: string, body?: unknown): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        if (!child.connected) return reject(new Error(`${options.name} is not running`));
        pending.set(id, { resolve: (value) => resolve(value as T), reject });
        child.send({ id, kind, body } satisfies Request);
      });
    },
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send({ id: 0, kind: 'close', body: undefined } satisfies Request);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The child's side: answers each request with its handler's result. `close` runs the `close` handler (if
 * any) and exits; losing the parent exits at once.
 */
export function serveParent(handlers: Record<string, (body: unknown) => unknown>): void {
  process.on('disconnect', () => process.exit(0));
  process.on('message', (request: Request) => {
    if (request.kind === 'close') {
      void Promise.resolve(handlers.close?.(undefined)).finally(() => process.exit(0));
      return;
    }
    const handler = handlers[request.kind];
    void Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`no handler for ${request.kind}`);
        return handler(request.body);
      })
      .then(
        (result) => process.send?.({ id: request.id, ok: true, result } satisfies Answer),
        (err: unknown) =>
          process.send?.({ id: request.id, ok: false, error: (err as Error).message } satisfies Answer),
      );
  });
}
