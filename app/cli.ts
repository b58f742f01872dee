#!/usr/bin/env node
import { parseArgs } from 'node:util';
import packageJson from '../package.json' with { type: 'json' };
import { runRolloutCommand } from '../operator/src/cli/command.ts';
import { runOperatorCommand } from '../operator/src/runtime/command.ts';
import { BUILTIN_PLUGINS } from './builtin-plugins.ts';
import { BootError } from '../gateway/src/boot-error.ts';
import { EX_USAGE } from '../gateway/src/plugin/command.ts';
import {
  pluginCommands,
  runMigrations,
  runPluginCommand,
  startGateway,
  type GatewayOptions,
} from '../gateway/src/gateway.ts';
import { describeStopRequest, waitForStopRequest } from '../gateway/src/signals.ts';

const USAGE = `Usage: gatehouse <command>

Commands:
  serve                              Start the gateway (the default). Applies pending migrations first.
  migrate                            Apply pending database migrations and exit.
  operator                           Run the Kubernetes operator (gatehouse operator --help).
  rollout                            Show and steer an AuthConfig's API_AUTH_MODE rollout (gatehouse rollout --help).

Options:
  -h, --help     Show this help.
  -v, --version  Show the version.

Configuration comes from environment variables; see docs/configuration.md.
With DATABASE_URL unset, an embedded PostgreSQL keeps its data under DATA_DIR (default ./.data).
`;

/**
 * The `gatehouse` command. `options` lets a test entry point boot the real CLI with fixture plugins;
 * production passes none.
 */
export async function main(
  argv: readonly string[],
  { available = BUILTIN_PLUGINS, ...settings }: Partial<GatewayOptions> = {},
): Promise<number> {
  const options: GatewayOptions = { available, ...settings };
  if (argv[0] === 'operator') return runOperatorCommand(argv.slice(1));
  if (argv[0] === 'rollout') return runRolloutCommand(argv.slice(1));
  const contributed = pluginCommands(options).find(({ command }) =>
    command.name.every((word, i) => argv[i] === word),
  );
  if (contributed) return runContributed(contributed, argv.slice(contributed.command.name.length), options);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
    });
  } catch (err) {
    process.stderr.write(`gatehouse: ${(err as Error).message}\n\n${usage(options)}`);
    return EX_USAGE;
  }
  if (parsed.values.help) {
    process.stdout.write(usage(options));
    return 0;
  }
  if (parsed.values.version) {
    process.stdout.write(`${packageJson.version}\n`);
    return 0;
  }
  const [command = 'serve', ...rest] = parsed.positionals;
  if (rest.length > 0 || (command !== 'serve' && command !== 'migrate')) {
    process.stderr.write(`gatehouse: unknown command "${parsed.positionals.join(' ')}"\n\n${usage(options)}`);
    return EX_USAGE;
  }

  try {
    if (command === 'migrate') {
      const report = await runMigrations(options);
      process.stdout.write(
        `${report.applied.length} migration(s) applied, ${report.alreadyApplied} already applied\n` +
          report.applied.map((id) => `  ${id}\n`).join(''),
      );
      return 0;
    }
    // Listening before the boot: a stop requested while migrations run is honoured once booted.
    const stopRequested = waitForStopRequest();
    const gateway = await startGateway(options);
    const request = await stopRequested;
    gateway.logger.info({ reason: describeStopRequest(request) }, 'stop requested');
    await gateway.close();
    await new Promise<void>((resolve) => gateway.logger.flush(() => resolve()));
    return 0;
  } catch (err) {
    if (err instanceof BootError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    process.stderr.write(`gatehouse: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}

const SUMMARY_COLUMN = 36;

/** The usage text, with the commands plugins contribute (a long synopsis puts its summary on the next line). */
function usage(options: GatewayOptions): string {
  const extra = pluginCommands(options)
    .map(({ command }) => {
      const synopsis = `  ${command.name.join(' ')} ${command.usage}`.trimEnd();
      return synopsis.length < SUMMARY_COLUMN
        ? `${synopsis.padEnd(SUMMARY_COLUMN)} ${command.summary}\n`
        : `${synopsis}\n${' '.repeat(SUMMARY_COLUMN + 1)}${command.summary}\n`;
    })
    .join('');
  return extra ? USAGE.replace('\nOptions:', `${extra}\nOptions:`) : USAGE;
}

/** Runs a plugin's subcommand with its own options; the same boot refusals as `serve`. */
async function runContributed(
  { plugin, command }: ReturnType<typeof pluginCommands>[number],
  args: readonly string[],
  options: GatewayOptions,
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: command.options,
      allowPositionals: false,
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(
      `gatehouse ${command.name.join(' ')}: ${(err as Error).message}\nUsage: gatehouse ${command.name.join(' ')} ${command.usage}\n`,
    );
    return EX_USAGE;
  }
  try {
    return await runPluginCommand(
      options,
      plugin,
      command,
      values as Record<string, string | boolean | undefined>,
    );
  } catch (err) {
    process.stderr.write(
      err instanceof BootError ? `${err.message}\n` : `gatehouse: ${(err as Error).stack ?? String(err)}\n`,
    );
    return 1;
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
  // Anything still holding the event loop open (a stuck client) must not keep a stopped gateway alive.
  process.exit();
}
