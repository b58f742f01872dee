/**
 * Server-side apply requests and `managedFields` readers shared by the apply contract tests
 * (`kube-contract-apply*.test.ts`): they run against the fake and against a real cluster alike.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { kubeRequest, type KubeResponse } from './kube-request.ts';
import type { KubeObject } from './types.ts';

type Json = Record<string, unknown>;

export const APPLY = 'application/apply-patch+yaml';

/** One entry of `metadata.managedFields`. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  fieldsType: string;
  fieldsV1: Json;
  subresource?: string;
}

/** A server-side apply of `body` to the object at `path` by `manager`, with `force=true` when asked. */
export function applyAt(
  kc: KubeConfig,
  path: string,
  body: Json,
  manager: string,
  force = false,
): Promise<KubeResponse> {
  const query = `fieldManager=${manager}${force ? '&force=true' : ''}`;
  return kubeRequest(kc, 'PATCH', `${path}?${query}`, body, APPLY);
}

/** `applyAt`, expected to succeed (200 or 201): the object the server stored. */
export async function appliedAt<T extends KubeObject>(
  kc: KubeConfig,
  path: string,
  body: Json,
  manager: string,
  force = false,
): Promise<T> {
  const response = await applyAt(kc, path, body, manager, force);
  expect([200, 201], JSON.stringify(response.body)).toContain(response.status);
  return response.body as T;
}

/** The `managedFields` entry of a manager and operation. */
export function managedEntry(
  object: KubeObject,
  manager: string,
  operation = 'Apply',
): ManagedFieldsEntry | undefined {
  const entries = (object.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  return entries.find((entry) => entry.manager === manager && entry.operation === operation);
}

/** The part of a manager's `fieldsV1` below the steps given (`['f:spec', 'f:template']`). */
export function fieldsBelow(
  object: KubeObject,
  manager: string,
  steps: readonly string[],
  operation = 'Apply',
): Json | undefined {
  let fields: unknown = managedEntry(object, manager, operation)?.fieldsV1;
  for (const step of steps) fields = (fields as Json | undefined)?.[step];
  return fields as Json | undefined;
}

/** The `message` of a Status answer. */
export const messageOf = (response: KubeResponse): string =>
  (response.body as { message?: string }).message ?? '';
