/**
 * Server-side apply of custom resources as a real API server does it (test/support/fake-kube/README.md,
 * "Server-side apply"), checked against the fake (CI) and a real cluster when KUBECONFIG is set: lists and maps
 * merge as the CRD's schema declares (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
 * `x-kubernetes-map-type`), lists without a list type are atomic.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestNamespace,
  deleteNamespace,
  startTestCluster,
  type KubeObject,
  type TestCluster,
} from './index.ts';
import { appliedAt, applyAt, fieldsBelow, messageOf } from './apply-requests.ts';

type Json = Record<string, unknown>;

const GROUP = 'apply.example.com';
const strings = { type: 'string' };

const SPEC_SCHEMA = {
  type: 'object',
  properties: {
    tags: { type: 'array', items: strings, 'x-kubernetes-list-type': 'set' },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: {
        type: 'object',
        required: ['port'],
        properties: {
          port: { type: 'integer' },
          protocol: { type: 'string', default: 'TCP' },
          name: strings,
        },
      },
    },
    args: { type: 'array', items: strings },
    selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: strings },
    labels: { type: 'object', additionalProperties: strings },
  },
};

const CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `appliedwidgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'appliedwidgets', singular: 'appliedwidget', kind: 'AppliedWidget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: SPEC_SCHEMA } } },
      },
    ],
  },
};

let cluster: TestCluster;
let namespace: string;

beforeAll(async () => {
  cluster = await startTestCluster({ installCrds: [CRD] });
  namespace = await createTestNamespace(cluster.kc, 'contract-custom');
});

afterAll(async () => {
  if (namespace) await deleteNamespace(cluster.kc, namespace);
  await cluster?.close();
});

interface Widget extends KubeObject {
  spec: Json;
}

const widget = (name: string) => `/apis/${GROUP}/v1/namespaces/${namespace}/appliedwidgets/${name}`;
const widgetBody = (name: string, spec: Json) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'AppliedWidget',
  metadata: { name },
  spec,
});
const apply = (name: string, spec: Json, manager: string) =>
  applyAt(cluster.kc, widget(name), widgetBody(name, spec), manager);
const applied = (name: string, spec: Json, manager: string) =>
  appliedAt<Widget>(cluster.kc, widget(name), widgetBody(name, spec), manager);

/** A manager's Apply fieldsV1 under `spec`. */
const specFields = (object: KubeObject, manager: string) => fieldsBelow(object, manager, ['f:spec']);

describe('custom resources: lists as the schema types them', () => {
  it('merges a set value by value', async () => {
    await applied('set', { tags: ['a', 'b'] }, 'installer');
    const object = await applied('set', { tags: ['c'] }, 'controller');
    expect(object.spec.tags).toEqual(['a', 'b', 'c']);
    expect(specFields(object, 'controller')).toEqual({ 'f:tags': { 'v:"c"': {} } });
  });

  it('merges a map list by its keys, a key the schema defaults left out', async () => {
    await applied('map', { ports: [{ port: 80, name: 'http' }] }, 'installer');
    const object = await applied('map', { ports: [{ port: 80, protocol: 'UDP' }] }, 'controller');
    expect(object.spec.ports).toEqual([
      { port: 80, name: 'http', protocol: 'TCP' },
      { port: 80, protocol: 'UDP' },
    ]);
    expect(specFields(object, 'installer')).toEqual({
      'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
    });
    expect(specFields(object, 'controller')).toEqual({
      'f:ports': { 'k:{"port":80,"protocol":"UDP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} } },
    });
    const twice = await apply('map', { ports: [{ port: 81 }, { port: 81, protocol: 'TCP' }] }, 'other');
    expect(twice.status).toBe(422);
    expect(messageOf(twice)).toContain('.spec.ports: duplicate entries for key [port=81,protocol="TCP"]');
  });

  it('owns a list without a list type whole, and an atomic map whole; a granular map merges', async () => {
    await applied('atomic', { args: ['--a'], selector: { a: '1' }, labels: { a: '1' } }, 'installer');
    const args = await apply('atomic', { args: ['--b'] }, 'controller');
    expect(args.status).toBe(409);
    expect(messageOf(args)).toBe('Apply failed with 1 conflict: conflict with "installer": .spec.args');
    const selector = await apply('atomic', { selector: { b: '2' } }, 'controller');
    expect(selector.status).toBe(409);
    expect(messageOf(selector)).toBe(
      'Apply failed with 1 conflict: conflict with "installer": .spec.selector',
    );
    const object = await applied('atomic', { labels: { b: '2' } }, 'controller');
    expect(object.spec.labels).toEqual({ a: '1', b: '2' });
    expect(specFields(object, 'installer')).toEqual({
      'f:args': {},
      'f:selector': {},
      'f:labels': { 'f:a': {} },
    });
  });
});
