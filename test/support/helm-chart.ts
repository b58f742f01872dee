/**
 * The real helm (test/support/kube-tools.ts) on the repository's chart, with a HOME of its own so no test reads
 * or writes the developer's helm configuration or cache.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { kubeTools } from './kube-tools.ts';
import { REPO_ROOT } from './process.ts';

const run = promisify(execFile);

export const CHART = path.join(REPO_ROOT, 'charts', 'gatehouse');

/** A rendered Kubernetes object. */
export interface Rendered {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

export interface HelmResult {
  ok: boolean;
  output: string;
}

export interface HelmChart {
  /** Runs helm with the given arguments; never throws on a non-zero exit. */
  helm(args: string[]): Promise<HelmResult>;
  /** Writes values to a file of its own and returns its path. */
  valuesFile(values: object): Promise<string>;
  /** `helm template gh <chart> -n gatehouse --include-crds` with the values; throws when helm refuses. */
  template(values?: object): Promise<Rendered[]>;
  close(): Promise<void>;
}

/** A helm for one test file; `close()` removes its HOME. */
export async function helmChart(): Promise<HelmChart> {
  const { helm: helmPath } = await kubeTools();
  const home = await mkdtemp(path.join(tmpdir(), 'gatehouse-helm-'));
  let files = 0;
  const helm = async (args: string[]): Promise<HelmResult> => {
    try {
      const { stdout, stderr } = await run(helmPath, args, {
        env: { PATH: process.env.PATH ?? '', HOME: home, HELM_CACHE_HOME: path.join(home, 'cache') },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 60_000,
      });
      return { ok: true, output: stdout + stderr };
    } catch (error) {
      const failure = error as { stdout?: string; stderr?: string; message: string };
      return { ok: false, output: `${failure.stdout ?? ''}${failure.stderr ?? failure.message}` };
    }
  };
  const valuesFile = async (values: object) => {
    const file = path.join(home, `values-${++files}.yaml`);
    await writeFile(file, stringify(values));
    return file;
  };
  const template = async (values: object = {}) => {
    const args = ['template', 'gh', CHART, '--namespace', 'gatehouse', '--include-crds'];
    const result = await helm([...args, '-f', await valuesFile(values)]);
    if (!result.ok) throw new Error(`helm template failed: ${result.output}`);
    return parseAllDocuments(result.output)
      .map((document) => {
        if (document.errors.length > 0)
          throw new Error(`helm rendered invalid YAML: ${document.errors.join('; ')}`);
        return document.toJS() as Rendered | null;
      })
      .filter((object): object is Rendered => object !== null);
  };
  return { helm, valuesFile, template, close: () => rm(home, { recursive: true, force: true }) };
}

/** The object of that kind and name, or an error listing what was rendered. */
export function findRendered(objects: readonly Rendered[], kind: string, name: string): Rendered {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) {
    const names = objects.map((object) => `${object.kind}/${object.metadata.name}`).join(', ');
    throw new Error(`no ${kind} ${name} in ${names}`);
  }
  return found;
}
