import { z } from 'zod';
import { coreConfigSchema, gateConfigSchema, secretSchemas } from '../../../gateway/src/operator-api.ts';
import { GATEWAY_PLUGINS } from './gateway-plugins.ts';

/**
 * What the gateway reads from its environment, taken from the gateway's own zod schemas (the core's, the
 * gate's and each built-in plugin's), so the operator validates an AuthConfig with exactly the rules the
 * gateway applies at boot and learns a new variable or plugin without being edited.
 */
export interface GatewayVariable {
  name: string;
  /** Declared with `secret()`: may come from NAME_FILE and never belongs in a ConfigMap. */
  secret: boolean;
  /** Who reads it: `core`, `gate` or a plugin id (APP_ENV is read by the core and the auth plugin). */
  readers: string[];
  schemas: z.core.$ZodType[];
}

interface EnvSchemaOwner {
  reader: string;
  shape: Readonly<Record<string, z.core.$ZodType>>;
}

const owners: EnvSchemaOwner[] = [
  { reader: 'core', shape: coreConfigSchema.shape },
  { reader: 'gate', shape: gateConfigSchema.shape },
  ...GATEWAY_PLUGINS.map((plugin) => ({ reader: plugin.id, shape: plugin.config.shape })),
];

function catalogue(): Map<string, GatewayVariable> {
  const variables = new Map<string, GatewayVariable>();
  for (const { reader, shape } of owners) {
    for (const [name, schema] of Object.entries(shape)) {
      const known = variables.get(name) ?? { name, secret: false, readers: [], schemas: [] };
      known.secret ||= secretSchemas.has(schema);
      known.readers.push(reader);
      known.schemas.push(schema);
      variables.set(name, known);
    }
  }
  return variables;
}

export const GATEWAY_VARIABLES: ReadonlyMap<string, GatewayVariable> = catalogue();

/** The plugin ids GATEWAY_PLUGINS may name, in the gateway's order. */
export const PLUGIN_IDS: readonly string[] = GATEWAY_PLUGINS.map((plugin) => plugin.id);

/** Each built-in plugin's dependencies (`dependsOn`). */
export const PLUGIN_DEPENDENCIES: ReadonlyMap<string, readonly string[]> = new Map(
  GATEWAY_PLUGINS.map((plugin) => [plugin.id, plugin.dependsOn]),
);

/** Whether the gateway declares `name` as a secret (so it must come from a Secret, never a ConfigMap). */
export function isSecretVariable(name: string): boolean {
  return GATEWAY_VARIABLES.get(name)?.secret ?? false;
}

/**
 * Checks one plain value the way the gateway parses it at boot (an empty string counts as unset there, as
 * here). Returns the gateway's messages, deduplicated across the schemas that read the variable.
 */
export function checkVariable(name: string, value: string): string[] {
  const variable = GATEWAY_VARIABLES.get(name);
  if (!variable || value === '') return [];
  const messages = new Set<string>();
  for (const schema of variable.schemas) {
    const parsed = z.safeParse(schema, value);
    if (!parsed.success) for (const issue of parsed.error.issues) messages.add(issue.message);
  }
  return [...messages];
}
