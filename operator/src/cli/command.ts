/**
 * `gatehouse rollout status|promote|pause|resume|rollback NAME` (operator/README.md, "gatehouse rollout"): the
 * SRE's view of an AuthConfig's phased API_AUTH_MODE rollout, and the requests the operator honours, made through
 * the Kubernetes API with the caller's kubeconfig (so the cluster's RBAC and audit log apply to them).
 */
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { ANNOTATIONS } from '../api/names.ts';
import { ACTIONS, planAction } from './actions.ts';
import { apiErrorMessage, createRolloutClient, type RolloutClient } from './client.ts';
import { formatStatus, rolloutView } from './status-view.ts';

export const ROLLOUT_USAGE = `Usage: gatehouse rollout <command> NAME [options]

Shows and steers the phased API_AUTH_MODE rollout of the AuthConfig NAME.

Commands:
  status NAME            Desired and effective mode, phase (0-3), conditions, the last analysis
                         figures and the history of transitions.
  promote NAME           Approve warn → enforce now (annotation ${ANNOTATIONS.promote}). Only in warn;
                         the analysis gates still apply.
  pause NAME             Automatic promotion off (spec.apiAuth.rollout.automaticPromotion: false).
  resume NAME            Automatic promotion on.
  rollback NAME          Roll back to API_AUTH_MODE=disabled at once (annotation ${ANNOTATIONS.rollback}).
  rollback NAME --clear  Lift the rollback: the rollout resumes from disabled.

Options:
  -n, --namespace NS     The AuthConfig's namespace (default: the kubeconfig context's, then "default").
  -o, --output FORMAT    table (default) or json.
  -h, --help             Show this help.

The cluster comes from KUBECONFIG or ~/.kube/config, or the in-cluster service account.
Exit status: 0 done, 1 not found, refused or an API error, 64 bad usage.
`;

const COMMANDS = ['status', ...ACTIONS] as const;
type Command = (typeof COMMANDS)[number];

export interface RolloutCommandDeps {
  /** The client to use; by default one on the kubeconfig loaded the standard way. */
  client?: RolloutClient;
  /** The namespace when -n is not given; by default the kubeconfig context's, then "default". */
  defaultNamespace?: string;
  now?: () => Date;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

/** Runs `gatehouse rollout ARGS`; returns the exit code. */
export async function runRolloutCommand(
  args: readonly string[],
  deps: RolloutCommandDeps = {},
): Promise<number> {
  const io: Output = {
    out: deps.stdout ?? ((text: string) => void process.stdout.write(text)),
    err: deps.stderr ?? ((text: string) => void process.stderr.write(text)),
  };
  const invocation = parseRolloutArgs(args, io);
  if (typeof invocation === 'number') return invocation;
  const target = connect(invocation, deps, io);
  if (typeof target === 'number') return target;
  return execute(invocation, target, deps.now ?? (() => new Date()), io);
}

/** Where the command writes. */
interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** A command line of `gatehouse rollout`, checked. */
interface Invocation {
  command: Command;
  name: string;
  namespace: string | undefined;
  json: boolean;
  clear: boolean;
}

/** The invocation, or the exit code after printing the usage (64 for bad usage, 0 for --help). */
function parseRolloutArgs(args: readonly string[], { out, err }: Output): Invocation | number {
  const usageError = (message: string): number => {
    err(`gatehouse rollout: ${message}\n\n${ROLLOUT_USAGE}`);
    return 64;
  };

  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        namespace: { type: 'string', short: 'n' },
        output: { type: 'string', short: 'o', default: 'table' },
        clear: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(ROLLOUT_USAGE);
    return 0;
  }
  const [command, name, ...extra] = positionals;
  if (command === undefined) return usageError('a command is required');
  if (!isCommand(command)) return usageError(`unknown command "${command}"`);
  if (name === undefined || name === '') return usageError(`${command} needs the AuthConfig NAME`);
  if (extra.length > 0) return usageError(`unexpected arguments: ${extra.join(' ')}`);
  if (values.output !== 'table' && values.output !== 'json')
    return usageError(`--output takes table or json, not "${values.output}"`);
  if (values.clear && command !== 'rollback') return usageError('--clear goes with rollback only');
  return { command, name, namespace: values.namespace, json: values.output === 'json', clear: values.clear };
}

/** The client and the namespace, from the kubeconfig unless given; the exit code 1 when it cannot be loaded. */
function connect(
  invocation: Invocation,
  deps: RolloutCommandDeps,
  { err }: Output,
): { client: RolloutClient; namespace: string } | number {
  let client = deps.client;
  let namespace = invocation.namespace ?? deps.defaultNamespace;
  try {
    if (client === undefined || namespace === undefined) {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromDefault();
      client ??= createRolloutClient(kubeConfig);
      namespace ??= kubeConfig.getContextObject(kubeConfig.currentContext)?.namespace ?? 'default';
    }
  } catch (error) {
    err(`gatehouse rollout: cannot load the kubeconfig: ${(error as Error).message}\n`);
    return 1;
  }
  return { client, namespace };
}

/** Reads the AuthConfig, then shows it (`status`) or applies the action's patch; returns the exit code. */
async function execute(
  { command, name, json, clear }: Invocation,
  { client, namespace }: { client: RolloutClient; namespace: string },
  now: () => Date,
  { out, err }: Output,
): Promise<number> {
  try {
    const object = await client.get(namespace, name);
    if (object === undefined) {
      err(`gatehouse rollout: AuthConfig ${namespace}/${name} not found\n`);
      return 1;
    }
    const view = rolloutView(object);
    if (command === 'status') {
      out(json ? `${JSON.stringify(view, null, 2)}\n` : formatStatus(view, now()));
      return 0;
    }
    const plan = planAction(command, view, { clear, now: now() });
    if (plan.patch !== null) await client.mergePatch(namespace, name, plan.patch);
    if (json) {
      const report = {
        namespace,
        name,
        action: command === 'rollback' && clear ? 'rollback --clear' : command,
        changed: plan.patch !== null,
        ...(plan.patch !== null ? { patch: plan.patch } : {}),
        message: plan.message,
      };
      out(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      (plan.exitCode === 0 ? out : err)(`${plan.message}\n`);
    }
    return plan.exitCode;
  } catch (error) {
    err(`gatehouse rollout ${command}: ${namespace}/${name}: ${apiErrorMessage(error)}\n`);
    return 1;
  }
}

function isCommand(word: string): word is Command {
  return (COMMANDS as readonly string[]).includes(word);
}
