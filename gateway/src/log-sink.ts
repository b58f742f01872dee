import { write as fsWrite, writeSync } from 'node:fs';

/**
 * The process's one log writer: whole lines, batched, written asynchronously to a file descriptor
 * (stdout by default). Both the application logger and the access log write here, so lines from the two
 * never interleave mid-line, even on a pipe.
 *
 * Batching: a line is pushed onto an array (O(1)); a batch goes out when 16 KiB are pending or 50 ms
 * after its first line, whichever comes first, as one write on libuv's thread pool. So a busy gateway
 * makes a few hundred write calls a second instead of one per request, and a quiet one shows a line
 * within 50 ms. Why not pino's own destination (sonic-boom 4): it measures the byte length of the whole
 * pending chunk on every line, which under load costs more than formatting the line. Measurements:
 * docs/adr/0003-pipeline-as-compiled-chain.md.
 *
 * Trade-off: a hard crash (SIGKILL, OOM) loses at most the last 50 ms of lines; orderly shutdown flushes,
 * and so does any `process.exit()` (an impatient second signal exits at once): see `flushOnExit`.
 */
export class LineSink {
  readonly #fd: number;
  readonly #batchBytes: number;
  readonly #maxDelayMs: number;
  /** Beyond this many characters waiting, lines are dropped: a stuck reader must not exhaust memory. */
  readonly #maxPendingChars: number;
  #pending: string[] = [];
  #pendingChars = 0;
  #writing = false;
  #timer: NodeJS.Timeout | undefined;
  #waiters: Array<() => void> = [];
  #dropped = 0;

  constructor(
    options: { fd?: number; batchBytes?: number; maxDelayMs?: number; maxPendingChars?: number } = {},
  ) {
    this.#fd = options.fd ?? 1;
    this.#batchBytes = options.batchBytes ?? 16 * 1024;
    this.#maxDelayMs = options.maxDelayMs ?? 50;
    this.#maxPendingChars = options.maxPendingChars ?? 64 * 1024 * 1024;
    flushOnExit(this);
  }

  /** pino's DestinationStream contract: one or more whole lines. */
  write(line: string): boolean {
    if (this.#pendingChars + line.length > this.#maxPendingChars) {
      this.#dropped++;
      return false;
    }
    this.#pending.push(line);
    this.#pendingChars += line.length;
    if (this.#writing) return true;
    if (this.#pendingChars >= this.#batchBytes) this.#writeBatch();
    else this.#timer ??= setTimeout(() => this.#writeBatch(), this.#maxDelayMs).unref();
    return true;
  }

  /** Calls back once everything written so far is out. */
  flush(callback?: (err?: Error) => void): void {
    if (!this.#writing && this.#pending.length === 0) {
      callback?.();
      return;
    }
    this.#waiters.push(() => callback?.());
    if (!this.#writing) this.#writeBatch();
  }

  /** For the last words of a crashing process: writes what is pending synchronously. */
  flushSync(): void {
    const rest = this.#pending.join('');
    this.#pending = [];
    this.#pendingChars = 0;
    if (rest.length > 0) writeSync(this.#fd, rest);
  }

  /** Lines dropped because the reader of the file descriptor fell too far behind. */
  get droppedLines(): number {
    return this.#dropped;
  }

  #writeBatch(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0) {
      this.#writing = false;
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const waiter of waiters) waiter();
      return;
    }
    const chunk = Buffer.from(this.#pending.join(''));
    this.#pending = [];
    this.#pendingChars = 0;
    this.#writing = true;
    this.#send(chunk);
  }

  #send(chunk: Buffer): void {
    fsWrite(this.#fd, chunk, 0, chunk.length, null, (err, written) => {
      if (err) {
        // A non-blocking pipe whose reader is slow: try the same bytes again shortly.
        if (err.code === 'EAGAIN') {
          setTimeout(() => this.#send(chunk), 10).unref();
          return;
        }
        // Nowhere left to report a failing log stream; drop the chunk and carry on.
        this.#afterWrite();
        return;
      }
      if (written < chunk.length) this.#send(chunk.subarray(written));
      else this.#afterWrite();
    });
  }

  /** Lines that arrived during the write go out at once if a batch is full or someone waits, else on the timer. */
  #afterWrite(): void {
    if (this.#pendingChars >= this.#batchBytes || this.#waiters.length > 0) {
      this.#writeBatch();
      return;
    }
    this.#writing = false;
    if (this.#pending.length > 0)
      this.#timer ??= setTimeout(() => this.#writeBatch(), this.#maxDelayMs).unref();
  }
}

/** Every sink a `process.exit()` must not cut off, held weakly (tests create many). */
const sinks = new Set<WeakRef<LineSink>>();
let exitHooked = false;

/**
 * Writes a sink's pending lines synchronously when the process exits, whatever the way: `process.exit()`
 * runs 'exit' listeners but no timers or thread-pool writes, so the batch would be lost with the very
 * lines that say why the process stopped.
 */
function flushOnExit(sink: LineSink): void {
  sinks.add(new WeakRef(sink));
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const ref of sinks) ref.deref()?.flushSync();
  });
}
