/**
 * A refusal to start: bad config, unknown or unmet plugins, a route claimed twice, a changed migration.
 * Carries every problem found, so an operator fixes them in one round (docs/configuration.md, "Invalid
 * configuration").
 */
export class BootError extends Error {
  override readonly name = 'BootError';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Gatehouse cannot start:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.problems = problems;
  }
}
