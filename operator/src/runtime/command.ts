/**
 * `gatehouse operator`: runs the operator until SIGTERM/SIGINT, then shuts down gracefully (the reconciles in
 * flight finish, the Lease is released so the standby takes over at once). Settings come from flags, then the
 * Downward API variables of operator/deploy/operator.yaml (POD_NAME, POD_NAMESPACE), then the kubeconfig.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import type { Reconciler } from '../reconcile/types.ts';
import { createDefaultReconciler } from './default-reconciler.ts';
import { DEFAULT_LEADER_TIMINGS } from './leader-election.ts';
import type { RuntimeLogger } from './logger.ts';
import { DEFAULT_PORT, DEFAULT_WATCHDOG_MS, startOperator, type ReconcilerContext } from './operator.ts';
import { describeStopRequest, waitForStopRequest } from '../../../gateway/src/operator-api.ts';

export const OPERATOR_USAGE = `Usage: gatehouse operator [options]

Runs the AuthConfig operator: leader election on the Lease gatehouse-operator, watches, reconciles,
and /healthz, /readyz, /metrics.

Options:
  --port N                    Health and metrics port (default ${DEFAULT_PORT}).
  --namespace NS              The operator's namespace, where its Lease lives (default $POD_NAMESPACE,
                              then the kubeconfig context's namespace, then "default").
  --identity ID               This replica's Lease identity (default $POD_NAME, then hostname-random).
  --watch-namespace NS        Watch one namespace only (default: every namespace).
  --watchdog-seconds N        Restart a watch silent this long (default ${DEFAULT_WATCHDOG_MS / 1000}).
  --lease-duration-seconds N  How long a Lease not renewed stays taken (default ${DEFAULT_LEADER_TIMINGS.leaseDurationMs / 1000}).
  --renew-deadline-seconds N  The leader steps down after failing to renew this long; below the lease
                              duration (default ${DEFAULT_LEADER_TIMINGS.renewDeadlineMs / 1000}).
  --retry-period-seconds N    How often to try to acquire or renew the Lease (default ${DEFAULT_LEADER_TIMINGS.retryPeriodMs / 1000}).
  -h, --help                  Show this help.

The cluster comes from KUBECONFIG or ~/.kube/config, or the in-cluster service account.
`;

export interface OperatorCommandDeps {
  /** Builds the reconciler for a cluster; the real one by default. */
  createReconciler?: (kubeConfig: KubeConfig, context: ReconcilerContext, log: RuntimeLogger) => Reconciler;
  env?: NodeJS.ProcessEnv;
  /** Resolves when the process is told to stop (by default: a stop signal, or its parent gone). */
  untilStopped?: () => Promise<unknown>;
}

/** Runs `gatehouse operator ARGS`; returns the exit code. */
export async function runOperatorCommand(
  args: readonly string[],
  deps: OperatorCommandDeps = {},
): Promise<number> {
  const flags = parseOperatorArgs(args);
  return typeof flags === 'number' ? flags : runOperator(flags, deps);
}

/** The command line of `gatehouse operator`, checked. */
interface OperatorFlags {
  port: number;
  watchdogSeconds: number;
  leaseDuration: number;
  renewDeadline: number;
  retryPeriod: number;
  namespace: string | undefined;
  identity: string | undefined;
  watchNamespace: string | undefined;
}

/** The flags, or the exit code after printing the usage (64 for bad usage, 0 for --help). */
function parseOperatorArgs(args: readonly string[]): OperatorFlags | number {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      allowPositionals: false,
      strict: true,
      options: {
        port: { type: 'string' },
        namespace: { type: 'string' },
        identity: { type: 'string' },
        'watch-namespace': { type: 'string' },
        'watchdog-seconds': { type: 'string' },
        'lease-duration-seconds': { type: 'string' },
        'renew-deadline-seconds': { type: 'string' },
        'retry-period-seconds': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`gatehouse operator: ${(err as Error).message}\n\n${OPERATOR_USAGE}`);
    return 64;
  }
  if (values.help) {
    process.stdout.write(OPERATOR_USAGE);
    return 0;
  }
  const port = parseCount(values.port, DEFAULT_PORT);
  const watchdogSeconds = parseCount(values['watchdog-seconds'], DEFAULT_WATCHDOG_MS / 1000);
  if (port === undefined || port > 65_535 || watchdogSeconds === undefined || watchdogSeconds < 1) {
    process.stderr.write(`gatehouse operator: --port and --watchdog-seconds take positive integers\n`);
    return 64;
  }
  const leaseSeconds = [
    parseCount(values['lease-duration-seconds'], DEFAULT_LEADER_TIMINGS.leaseDurationMs / 1000),
    parseCount(values['renew-deadline-seconds'], DEFAULT_LEADER_TIMINGS.renewDeadlineMs / 1000),
    parseCount(values['retry-period-seconds'], DEFAULT_LEADER_TIMINGS.retryPeriodMs / 1000),
  ] as const;
  const [leaseDuration, renewDeadline, retryPeriod] = leaseSeconds;
  // client-go's rule: the leader must give up before anyone may take its Lease over.
  if (
    leaseDuration === undefined ||
    renewDeadline === undefined ||
    retryPeriod === undefined ||
    retryPeriod < 1 ||
    renewDeadline >= leaseDuration ||
    retryPeriod >= renewDeadline
  ) {
    process.stderr.write(
      `gatehouse operator: the lease timings take positive integers with ` +
        `retry period < renew deadline < lease duration\n`,
    );
    return 64;
  }
  return {
    port,
    watchdogSeconds,
    leaseDuration,
    renewDeadline,
    retryPeriod,
    namespace: values.namespace,
    identity: values.identity,
    watchNamespace: values['watch-namespace'],
  };
}

/** Runs the operator until it is told to stop; 0 after a clean stop, 1 when it failed. */
async function runOperator(flags: OperatorFlags, deps: OperatorCommandDeps): Promise<number> {
  const env = deps.env ?? process.env;
  const createReconciler = deps.createReconciler ?? createDefaultReconciler;
  const log = pino({ level: env.LOG_LEVEL ?? 'info', base: { service: 'gatehouse-operator' } });
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromDefault();
    const namespace =
      flags.namespace ??
      env.POD_NAMESPACE ??
      kubeConfig.getContextObject(kubeConfig.currentContext)?.namespace;
    const operator = await startOperator({
      kubeConfig,
      namespace: namespace ?? 'default',
      identity: flags.identity ?? env.POD_NAME ?? `${hostname()}-${randomUUID().slice(0, 8)}`,
      reconciler: (context) => createReconciler(kubeConfig, context, log),
      port: flags.port,
      watchdogMs: flags.watchdogSeconds * 1000,
      leaderElection: {
        leaseDurationMs: flags.leaseDuration * 1000,
        renewDeadlineMs: flags.renewDeadline * 1000,
        retryPeriodMs: flags.retryPeriod * 1000,
      },
      ...(flags.watchNamespace === undefined ? {} : { watchNamespace: flags.watchNamespace }),
      log,
    });
    await (deps.untilStopped ?? (() => untilStopRequested(log)))();
    await operator.stop();
    return 0;
  } catch (err) {
    log.error({ error: (err as Error).stack ?? String(err) }, 'operator failed');
    return 1;
  }
}

/** SIGTERM/SIGINT/SIGHUP, or the parent process gone: logged, so a stop is never silent. */
async function untilStopRequested(log: RuntimeLogger): Promise<void> {
  const request = await waitForStopRequest();
  log.info({ reason: describeStopRequest(request) }, 'stop requested');
}

function parseCount(value: string | undefined, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  return /^\d+$/.test(value) ? Number(value) : undefined;
}
