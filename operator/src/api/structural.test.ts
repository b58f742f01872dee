import { describe, expect, it } from 'vitest';
import { applyDefaults } from './defaults.ts';
import type { JsonSchema } from './json-schema.ts';
import { specSchema } from './spec-schema.ts';
import { checkStructure } from './structural.ts';

const schema: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', maxLength: 5, pattern: '^[a-z]+$' },
    count: { type: 'integer', default: 3, minimum: 1 },
    ratio: { type: 'number', maximum: 1 },
    nested: {
      type: 'object',
      default: {},
      properties: { on: { type: 'boolean', default: false }, mode: { type: 'string', enum: ['a', 'b'] } },
    },
    tags: { type: 'array', maxItems: 2, 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    entries: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['key'],
      items: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } } },
    },
    labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 },
    at: { type: 'string', format: 'date-time' },
  },
};

describe('applyDefaults (structural defaulting, as the API server)', () => {
  it('fills absent fields, inside defaulted objects too, and prunes nulls first', () => {
    expect(applyDefaults(schema, { name: 'x', count: null })).toEqual({
      name: 'x',
      count: 3,
      nested: { on: false },
    });
  });

  it('keeps given values, leaves its input alone, and gives every call its own copy of a default', () => {
    const input = { name: 'x', nested: { on: true } };
    const first = applyDefaults(schema, input) as { nested: { on: boolean } };
    expect(first).toEqual({ name: 'x', count: 3, nested: { on: true } });
    expect(input).toEqual({ name: 'x', nested: { on: true } });
    const a = applyDefaults(specSchema, { target: { name: 'g' } }) as { plugins: string[] };
    a.plugins.push('changed');
    const b = applyDefaults(specSchema, { target: { name: 'g' } }) as { plugins: string[] };
    expect(b.plugins).toEqual(['auth', 'kyc', 'messaging', 'realtime']);
  });
});

describe('checkStructure', () => {
  it('accepts a conforming value', () => {
    expect(
      checkStructure(schema, {
        name: 'abc',
        count: 2,
        ratio: 0.5,
        nested: { on: true, mode: 'a' },
        tags: ['x', 'y'],
        entries: [{ key: 'a' }, { key: 'b' }],
        labels: { a: 'b' },
        at: '2026-01-02T03:04:05Z',
      }),
    ).toEqual([]);
  });

  it('reports each problem with its path', () => {
    expect(
      checkStructure(
        schema,
        {
          count: 1.5,
          ratio: 2,
          nested: { mode: 'c', extra: 1 },
          tags: ['x', 'x', 'y'],
          entries: [{ key: 'a' }, { key: 'a', value: 'v' }],
          labels: { a: 'b', c: 'd' },
          at: 'yesterday',
        },
        'spec',
      ),
    ).toEqual([
      { path: 'spec.name', message: 'required' },
      { path: 'spec.count', message: 'must be an integer (got 1.5)' },
      { path: 'spec.ratio', message: 'must be at most 1' },
      { path: 'spec.nested.mode', message: 'must be one of: a, b (got "c")' },
      { path: 'spec.nested.extra', message: 'unknown field' },
      { path: 'spec.tags', message: 'must have at most 2 entries' },
      { path: 'spec.tags[1]', message: 'duplicate entry "x"' },
      { path: 'spec.entries[1]', message: 'duplicate entry ["a"]' },
      { path: 'spec.labels', message: 'must have at most 1 entries' },
      { path: 'spec.at', message: 'must be an RFC 3339 date-time (got "yesterday")' },
    ]);
  });

  it('counts length in characters, not UTF-16 units, as the API server does', () => {
    expect(checkStructure(schema, { name: 'ééééé' })).toEqual([
      { path: 'name', message: 'must match ^[a-z]+$ (got "ééééé")' },
    ]);
    expect(checkStructure({ type: 'string', maxLength: 2 }, '😀😀')).toEqual([]);
  });
});
