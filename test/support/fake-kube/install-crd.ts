/**
 * Installs a CRD through the API, on the fake or on a real cluster, as `kubectl apply` would: create it, or
 * replace the one already there, then wait until the server reports it `Established` (its types are served).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { readFile } from 'node:fs/promises';
import { eventually } from '../eventually.ts';
import { kubeRequest, type KubeResponse } from './kube-request.ts';
import type { KubeObject } from './types.ts';

const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A refusal from the API server while installing a CRD; `status` is the server's Status body. */
export class CrdInstallError extends Error {
  readonly code: number;
  readonly status: unknown;

  constructor(action: string, response: KubeResponse) {
    const message =
      (response.body as { message?: string } | undefined)?.message ?? JSON.stringify(response.body);
    super(`${action} answered ${response.status}: ${message}`);
    this.name = 'CrdInstallError';
    this.code = response.status;
    this.status = response.body;
  }
}

export interface InstallCrdOptions {
  /** How long to wait for `Established` (default 60 s: a loaded real cluster can be slow). */
  timeoutMs?: number;
}

/**
 * Creates `crd` or replaces the CRD of the same name, then polls until it is Established; returns the CRD as
 * the server stores it. A CRD the server refuses throws a CrdInstallError carrying the 422 Status.
 */
export async function installCrd(
  kc: KubeConfig,
  crd: KubeObject,
  options: InstallCrdOptions = {},
): Promise<KubeObject> {
  const name = crd.metadata.name ?? '';
  const body = withoutServerFields(crd);
  // kubectl apply asks for strict field validation: an unknown field in a CRD is an error, not a warning.
  const created = await kubeRequest(kc, 'POST', `${CRDS_PATH}?fieldValidation=Strict`, body);
  if (created.status === 409) await replaceCrd(kc, name, body);
  else if (created.status !== 201) throw new CrdInstallError(`creating CRD ${name}`, created);
  return waitForEstablished(kc, name, options.timeoutMs ?? 60_000);
}

/**
 * Replaces the stored CRD with `body`. Suites running in parallel on one cluster replace it at the same time,
 * so a 409 (another replaced it since this read) means read again and retry.
 */
async function replaceCrd(kc: KubeConfig, name: string, body: KubeObject): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const current = await kubeRequest(kc, 'GET', `${CRDS_PATH}/${name}`);
    if (current.status !== 200) throw new CrdInstallError(`reading CRD ${name}`, current);
    const resourceVersion = (current.body as KubeObject).metadata.resourceVersion;
    const replaced = await kubeRequest(kc, 'PUT', `${CRDS_PATH}/${name}?fieldValidation=Strict`, {
      ...body,
      metadata: { ...body.metadata, resourceVersion },
    });
    if (replaced.status === 200) return;
    if (replaced.status !== 409 || attempt === 5)
      throw new CrdInstallError(`replacing CRD ${name}`, replaced);
  }
}

/** Installs every CustomResourceDefinition document of a YAML file (e.g. `operator/deploy/crd.yaml`). */
export async function installCrdFile(kc: KubeConfig, path: string, options: InstallCrdOptions = {}) {
  const documents = await readCrdFile(path);
  const installed: KubeObject[] = [];
  for (const document of documents) installed.push(await installCrd(kc, document, options));
  return installed;
}

/** The CustomResourceDefinition documents of a YAML file, as plain objects. */
export async function readCrdFile(path: string): Promise<KubeObject[]> {
  const text = await readFile(path, 'utf8');
  return parseAllDocuments(text)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((document): document is KubeObject => document?.kind === 'CustomResourceDefinition');
}

async function waitForEstablished(kc: KubeConfig, name: string, timeoutMs: number): Promise<KubeObject> {
  return eventually(`CRD ${name} Established`, timeoutMs, async () => {
    const response = await kubeRequest(kc, 'GET', `${CRDS_PATH}/${name}`);
    const crd = response.body as KubeObject;
    return response.status === 200 && isEstablished(crd) ? crd : undefined;
  });
}

/** The server reports the CRD's types as served. */
export function isEstablished(crd: KubeObject): boolean {
  const conditions = (crd.status as { conditions?: Array<{ type?: string; status?: string }> } | undefined)
    ?.conditions;
  return conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
}

function withoutServerFields(crd: KubeObject): KubeObject {
  const { status: _status, ...rest } = structuredClone(crd);
  const {
    resourceVersion: _rv,
    uid: _uid,
    creationTimestamp: _ct,
    generation: _g,
    ...metadata
  } = rest.metadata;
  return { ...rest, metadata };
}
