import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { authConfigCrd, authConfigSchema } from './crd.ts';
import { GENERATED_FILES } from './generate.ts';
import type { JsonSchema } from './json-schema.ts';
import { CONDITION_TYPES } from './status-schema.ts';

describe('one source for the CRD and the types', () => {
  it.each(GENERATED_FILES.map((file) => ({ file, name: relative(process.cwd(), file.path) })))(
    '$name is what the schema source generates (run `node operator/scripts/generate-crd.ts`)',
    async ({ file }) => {
      expect(await readFile(file.path, 'utf8')).toBe(await file.render());
    },
  );

  it('crd.yaml is the CRD object, as plain YAML (no anchors)', async () => {
    const text = await readFile(new URL('../../deploy/crd.yaml', import.meta.url), 'utf8');
    expect(text).not.toMatch(/[&*]a\d/);
    expect(parse(text)).toEqual(JSON.parse(JSON.stringify(authConfigCrd)));
  });
});

describe('the AuthConfig CRD', () => {
  const [version] = authConfigCrd.spec.versions;

  it('is namespaced gatehouse.dev/v1alpha1 AuthConfig, short name ac, served and stored', () => {
    expect(authConfigCrd.metadata.name).toBe('authconfigs.gatehouse.dev');
    expect(authConfigCrd.spec).toMatchObject({
      group: 'gatehouse.dev',
      scope: 'Namespaced',
      names: { kind: 'AuthConfig', plural: 'authconfigs', singular: 'authconfig', shortNames: ['ac'] },
    });
    expect(authConfigCrd.spec.versions).toHaveLength(1);
    expect(version).toMatchObject({
      name: 'v1alpha1',
      served: true,
      storage: true,
      subresources: { status: {} },
    });
  });

  it('prints Mode, Phase, Ready and Age', () => {
    const columns = version?.additionalPrinterColumns.filter((column) => !('priority' in column));
    expect(columns?.map(({ name, jsonPath }) => [name, jsonPath])).toEqual([
      ['Mode', '.status.rollout.effectiveMode'],
      ['Phase', '.status.rollout.phase'],
      ['Ready', '.status.conditions[?(@.type=="Ready")].status'],
      ['Age', '.metadata.creationTimestamp'],
    ]);
  });

  it('has a structural schema: every node typed, objects with properties or a value schema', () => {
    const untyped: string[] = [];
    const visit = (schema: JsonSchema, path: string) => {
      if (!schema.type) untyped.push(path);
      for (const [key, child] of Object.entries(schema.properties ?? {})) visit(child, `${path}.${key}`);
      if (schema.items) visit(schema.items, `${path}[]`);
      if (schema.additionalProperties) visit(schema.additionalProperties, `${path}{}`);
    };
    visit(authConfigSchema, '');
    expect(untyped).toEqual([]);
  });

  it('bounds every string and list (the CEL cost estimate needs it) outside status', () => {
    const unbounded: string[] = [];
    const visit = (schema: JsonSchema, path: string) => {
      if (schema.type === 'string' && schema.maxLength === undefined && !schema.enum) unbounded.push(path);
      if (schema.type === 'array' && schema.maxItems === undefined) unbounded.push(path);
      for (const [key, child] of Object.entries(schema.properties ?? {})) visit(child, `${path}.${key}`);
      if (schema.items) visit(schema.items, `${path}[]`);
      if (schema.additionalProperties) visit(schema.additionalProperties, `${path}{}`);
    };
    const spec = authConfigSchema.properties?.spec;
    if (!spec) throw new Error('no spec');
    visit(spec, 'spec');
    expect(unbounded).toEqual([]);
  });

  it('status conditions are a map keyed by type, with the five condition types', () => {
    const conditions = authConfigSchema.properties?.status?.properties?.conditions;
    expect(conditions?.['x-kubernetes-list-type']).toBe('map');
    expect(conditions?.['x-kubernetes-list-map-keys']).toEqual(['type']);
    expect(conditions?.items?.properties?.type?.enum).toEqual([...CONDITION_TYPES]);
    expect(CONDITION_TYPES).toEqual(['Ready', 'Progressing', 'Degraded', 'Promotable', 'Phase3Ready']);
  });
});
