import { z } from 'zod';

/**
 * Building blocks for environment-variable schemas. Environment variables are the contract between the
 * operator and the gateway (docs/configuration.md), so every plugin describes its variables with these
 * helpers and the loader parses them all once at boot, with the same rules.
 */

/** Secrets registered here may also be given as `NAME_FILE` (a path), and are never echoed in errors. */
export const secretSchemas = z.registry<{ secret: true }>();

/** Marks a variable as a secret: `NAME_FILE` is honoured and its value never appears in messages. */
export function secret<T extends z.ZodType>(schema: T): T {
  secretSchemas.add(schema, { secret: true });
  return schema;
}

/** A TCP port; 0 means "any free port" (used by tests). */
export function port(defaultValue: number) {
  return z
    .string()
    .regex(/^\d+$/, 'must be a port number')
    .transform(Number)
    .pipe(z.number().int().min(0, 'must be 0..65535').max(65535, 'must be 0..65535'))
    .default(defaultValue);
}

/** A bounded integer. */
export function integer(defaultValue: number, min: number, max: number) {
  return z
    .string()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .default(defaultValue);
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** A boolean written as true/false (also 1/0, yes/no, on/off). */
export function boolean(defaultValue: boolean) {
  return z
    .string()
    .transform((value, ctx) => {
      const v = value.trim().toLowerCase();
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      ctx.addIssue({ code: 'custom', message: 'must be true or false' });
      return z.NEVER;
    })
    .default(defaultValue);
}

/** A comma-separated list; blanks are dropped. */
export function list(defaultValue: readonly string[]) {
  return z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    )
    .default([...defaultValue]);
}

/** A set of allowed values, case-sensitive, with the allowed ones listed in the error. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of: ${values.join(', ')}` });
}
