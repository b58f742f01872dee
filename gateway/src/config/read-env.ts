import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { secretSchemas } from './env-schema.ts';

export type EnvSchema = z.ZodObject<z.ZodRawShape>;
export type Env = Readonly<Record<string, string | undefined>>;

export type ReadResult<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/**
 * Reads the variables an env schema declares from `env` and validates them, collecting every problem
 * instead of stopping at the first, so one round of fixes is enough (docs/configuration.md, "Invalid
 * configuration").
 *
 * - An empty string counts as unset: manifests and shells often export `NAME=`.
 * - A secret may come from `NAME_FILE`; giving both is ambiguous and reported. A trailing newline in the
 *   file is dropped (what `echo secret > file` and Kubernetes secret volumes produce).
 * - Messages name the variable and show the offending value, except for secrets.
 */
export function readEnv<S extends EnvSchema>(schema: S, env: Env): ReadResult<z.output<S>> {
  const problems: string[] = [];
  const input: Record<string, string | undefined> = {};
  for (const [name, field] of Object.entries(schema.shape)) {
    const isSecret = secretSchemas.has(field);
    const direct = nonEmpty(env[name]);
    const filePath = isSecret ? nonEmpty(env[`${name}_FILE`]) : undefined;
    if (direct !== undefined && filePath !== undefined) {
      problems.push(`${name}: set either ${name} or ${name}_FILE, not both`);
      continue;
    }
    if (filePath !== undefined) {
      try {
        input[name] = readFileSync(filePath, 'utf8').replace(/\r?\n$/, '');
      } catch (err) {
        problems.push(
          `${name}_FILE: cannot read ${filePath} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        );
      }
      continue;
    }
    input[name] = direct;
  }

  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? '(config)');
      const field = schema.shape[name] as z.ZodType | undefined;
      // For structured values (a JSON list), name the entry and field, e.g. GATEWAY_UPSTREAMS[1].target,
      // instead of echoing the whole value.
      const where = issue.path
        .slice(1)
        .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
        .join('');
      const shown = field && secretSchemas.has(field) ? undefined : where ? undefined : input[name];
      problems.push(
        `${name}${where}: ${issue.message}${shown === undefined ? '' : ` (got "${truncate(shown)}")`}`,
      );
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  if (!parsed.success) throw new Error('unreachable: parse failed without problems');
  return { ok: true, value: parsed.data };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function truncate(value: string): string {
  return value.length > 80 ? `${value.slice(0, 77)}...` : value;
}
