/**
 * JSON values as the API server sends them: the reconciler works on wire JSON, not the client's models, and the
 * schema code (defaulting, structural checks) walks the same values.
 */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** True for a JSON object: not null, not an array (the one test of "is an object" in the operator). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep equality of JSON values, key order ignored and `undefined` members treated as absent, so a desired
 * object compares equal to what the API server returns for it. Used to skip writes that change nothing.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (!isJsonObject(member)) return member;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(member).sort()) sorted[key] = member[key];
    return sorted;
  });
}
