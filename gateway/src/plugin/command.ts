import type { ParseArgsOptionsConfig } from 'node:util';
import type { AuditWriter } from '../audit/audit-writer.ts';
import type { Clock } from '../clock.ts';
import type { CoreConfig } from '../config/core-config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';

/**
 * A `gatehouse` subcommand a plugin contributes (README.md, "CLI": one binary for serving, migrating and the
 * plugins' admin commands), e.g. `gatehouse admin create`. The core parses the arguments, loads the same
 * settings as `serve`, opens the database and applies migrations before `run`.
 */
export interface PluginCommand<C = unknown> {
  /** The words after `gatehouse`, e.g. ['admin', 'create']. */
  readonly name: readonly string[];
  readonly summary: string;
  /** Option syntax for the help text, e.g. '--email <address>'. */
  readonly usage: string;
  readonly options: ParseArgsOptionsConfig;
  run(
    ctx: CommandContext<C>,
    values: Readonly<Record<string, string | boolean | undefined>>,
  ): Promise<number>;
}

export interface CommandContext<C> {
  readonly config: Readonly<C>;
  readonly core: Readonly<CoreConfig>;
  readonly db: Database;
  readonly audit: AuditWriter;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly io: {
    readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
    readonly stdout: NodeJS.WritableStream;
    readonly stderr: NodeJS.WritableStream;
  };
}

/** The exit code for wrong arguments (EX_USAGE of sysexits.h), the same for the core's commands and the plugins'. */
export const EX_USAGE = 64;

/** Prints a command's result as one JSON document on stdout, for scripts to read; notes go to stderr. */
export function printResult(io: CommandContext<unknown>['io'], value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Reports wrong arguments as `gatehouse <command>: <message>` on stderr and returns EX_USAGE. */
export function usageError(io: CommandContext<unknown>['io'], command: string, message: string): number {
  io.stderr.write(`gatehouse ${command}: ${message}\n`);
  return EX_USAGE;
}

/** Every problem zod found in a command's options, as one line: `--quota: ...; --period: ...`. */
export function optionProblems(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((issue) => `--${issue.path.map(String).join('.')}: ${issue.message}`).join('; ');
}
