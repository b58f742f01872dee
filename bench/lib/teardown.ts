/**
 * The stop steps of everything a benchmark started, run in reverse order: at the end of each part, on an
 * error, and on Ctrl-C or SIGTERM (then the process exits 130), so no gateway, client or PostgreSQL outlives
 * the run.
 */
export class Teardown {
  private readonly steps: Array<{ name: string; run(): Promise<void> }> = [];
  /**
   * Set on Ctrl-C or SIGTERM: settles (by exiting) once everything is stopped. The benchmark's own work fails
   * meanwhile, as its processes go; it should wait for this instead of reporting that failure.
   */
  interrupted: Promise<never> | null = null;

  constructor() {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        process.stderr.write(`${signal}: stopping what the benchmark started\n`);
        this.interrupted = this.unwind(0).then(() => process.exit(130));
      });
    }
  }

  add(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  /** A point to unwind to: the steps added after it belong to one part of the run. */
  mark(): number {
    return this.steps.length;
  }

  /** Runs the steps added since `mark`, newest first; a failing step is reported and the others still run. */
  async unwind(mark: number): Promise<void> {
    while (this.steps.length > mark) {
      const step = this.steps.pop() as { name: string; run(): Promise<void> };
      await step.run().catch((err: unknown) => {
        process.stderr.write(`stopping ${step.name} failed: ${(err as Error).message}\n`);
      });
    }
  }
}
