/**
 * The built-in kinds' list types by kind and path (the kinds the fake does not serve included, e.g. a Service),
 * as their Go types declare them: the same field name keys differently, or not at all, elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { builtinFieldSchema } from './builtin-lists.ts';

const steps = (path: string) => path.split('.').map((part) => (part === '*' ? 'k:{}' : `f:${part}`));
const listOf = (kind: string, path: string) => builtinFieldSchema(kind).list(steps(path));
const TCP = { protocol: 'TCP' };

describe('built-in list types', () => {
  it("keys a Service's ports by port and protocol, a container's by containerPort and protocol", () => {
    expect(listOf('Service', 'spec.ports')).toEqual({
      type: 'map',
      keys: ['port', 'protocol'],
      defaults: TCP,
    });
    const containerPorts = { type: 'map', keys: ['containerPort', 'protocol'], defaults: TCP };
    expect(listOf('Deployment', 'spec.template.spec.containers.*.ports')).toEqual(containerPorts);
    expect(listOf('Pod', 'spec.initContainers.*.ports')).toEqual(containerPorts);
    expect(listOf('CronJob', 'spec.jobTemplate.spec.template.spec.containers.*.env')).toMatchObject({
      keys: ['name'],
    });
  });

  it('keeps lists without markers, and known names at other paths, atomic', () => {
    expect(listOf('Deployment', 'spec.template.spec.tolerations')).toEqual({ type: 'atomic' });
    expect(listOf('Deployment', 'spec.template.spec.containers.*.envFrom')).toEqual({ type: 'atomic' });
    expect(listOf('Deployment', 'spec.ports')).toEqual({ type: 'atomic' });
    expect(listOf('ConfigMap', 'spec.template.spec.containers')).toEqual({ type: 'atomic' });
    expect(listOf('ServiceAccount', 'imagePullSecrets')).toEqual({ type: 'atomic' });
  });

  it('keys owner references by uid and conditions by type, and holds finalizers as a set, for every kind', () => {
    expect(listOf('ConfigMap', 'metadata.ownerReferences')).toEqual({ type: 'map', keys: ['uid'] });
    expect(listOf('Namespace', 'status.conditions')).toEqual({ type: 'map', keys: ['type'] });
    expect(listOf('Lease', 'metadata.finalizers')).toEqual({ type: 'set' });
  });

  it('owns selectors whole: a workload LabelSelector, a Service selector map, a pod nodeSelector', () => {
    const atomic = (kind: string, path: string) => builtinFieldSchema(kind).atomicObject(steps(path));
    expect(atomic('Deployment', 'spec.selector')).toBe(true);
    expect(atomic('Service', 'spec.selector')).toBe(true);
    expect(atomic('Pod', 'spec.nodeSelector')).toBe(true);
    expect(atomic('Deployment', 'spec.template.spec.topologySpreadConstraints.*.labelSelector')).toBe(true);
    expect(atomic('Deployment', 'spec.template.metadata.labels')).toBe(false);
    expect(atomic('ConfigMap', 'spec.selector')).toBe(false);
  });
});
