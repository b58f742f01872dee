import type { JsonSchema } from './json-schema.ts';

/**
 * Writes TypeScript declarations for CRD schemas, so the types and the CRD come from one source.
 *
 * Each named object schema gives two interfaces: `Name`, the object as the API server returns it (defaults
 * applied, so a field with a default is always present), and `NameInput`, what a user may write (fields with
 * a default are optional). Schemas without defaults below them have only `Name`: both are the same.
 */
export function emitTypes(names: ReadonlyArray<readonly [JsonSchema, string]>): string {
  const emitter = new Emitter(names);
  return names.map(([schema, name]) => emitter.declaration(schema, name)).join('\n\n');
}

type Variant = 'stored' | 'input';

class Emitter {
  private readonly names: ReadonlyArray<readonly [JsonSchema, string]>;

  constructor(names: ReadonlyArray<readonly [JsonSchema, string]>) {
    this.names = names;
  }

  declaration(schema: JsonSchema, name: string): string {
    const doc = comment(schema.description, '');
    if (schema.type !== 'object')
      return `${doc}export type ${name} = ${this.inline(schema, 'stored', `${name}`)};`;
    const stored = `${doc}export interface ${name} ${this.objectBody(schema, 'stored', name)}`;
    if (!hasDefaults(schema)) return stored;
    return `${stored}\n\n${comment(`${name} as written: fields with a default may be left out.`, '')}export interface ${name}Input ${this.objectBody(schema, 'input', name)}`;
  }

  /** The name of a schema: the same object, or one of the same shape (descriptions and defaults aside). */
  private nameOf(schema: JsonSchema): string | undefined {
    const same = this.names.find(([candidate]) => candidate === schema);
    if (same) return same[1];
    const shape = shapeOf(schema);
    return this.names.find(([candidate]) => shapeOf(candidate) === shape)?.[1];
  }

  private reference(schema: JsonSchema, variant: Variant, path: string): string {
    const name = this.nameOf(schema);
    if (name === undefined) return this.inline(schema, variant, path);
    return variant === 'input' && hasDefaults(schema) ? `${name}Input` : name;
  }

  private inline(schema: JsonSchema, variant: Variant, path: string): string {
    switch (schema.type) {
      case 'string':
        return schema.enum ? schema.enum.map((value) => `'${value}'`).join(' | ') : 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'array': {
        if (!schema.items) throw new Error(`${path}: an array needs items`);
        const item = this.reference(schema.items, variant, `${path}[]`);
        return item.includes('|') ? `Array<${item}>` : `${item}[]`;
      }
      case 'object':
        if (schema.additionalProperties)
          return `Record<string, ${this.reference(schema.additionalProperties, variant, `${path}{}`)}>`;
        if (schema.properties && Object.keys(schema.properties).length > 0)
          throw new Error(`${path}: an object schema with properties needs a name in TYPE_NAMES`);
        return 'Record<string, unknown>';
    }
  }

  private objectBody(schema: JsonSchema, variant: Variant, path: string): string {
    const required = new Set(schema.required ?? []);
    const lines = Object.entries(schema.properties ?? {}).map(([key, property]) => {
      const present =
        variant === 'stored'
          ? required.has(key) || property.default !== undefined
          : required.has(key) && property.default === undefined;
      const doc = comment(describe(property), '  ');
      return `${doc}  ${key}${present ? '' : '?'}: ${this.reference(property, variant, `${path}.${key}`)};`;
    });
    return `{\n${lines.join('\n')}\n}`;
  }
}

function describe(schema: JsonSchema): string | undefined {
  if (schema.default === undefined) return schema.description;
  const shown = JSON.stringify(schema.default);
  return `${schema.description ?? ''} Default: \`${shown}\`.`.trim();
}

function comment(text: string | undefined, indent: string): string {
  if (!text) return '';
  return `${indent}/** ${text.replaceAll('*/', '*\\/')} */\n`;
}

function hasDefaults(schema: JsonSchema): boolean {
  return (
    Object.values(schema.properties ?? {}).some(
      (property) => property.default !== undefined || hasDefaults(property),
    ) ||
    (schema.items !== undefined && hasDefaults(schema.items)) ||
    (schema.additionalProperties !== undefined && hasDefaults(schema.additionalProperties))
  );
}

function shapeOf(schema: JsonSchema): string {
  return JSON.stringify(schema, (key, value: unknown) =>
    key === 'description' || key === 'default' ? undefined : value,
  );
}
