/**
 * The AuthConfig's PromQL templates with their placeholders filled (spec-schema.ts, `prometheusQueriesSchema`):
 * `{{window}}` becomes a PromQL range duration in whole seconds (`3600s`), `{{namespace}}` the AuthConfig's
 * namespace, `{{mode}}` the mode being analysed (warn or enforce). A query the reconciler already filled (rollout-settings.ts, `analysisQueries`) passes unchanged.
 */
export function fillQuery(
  template: string,
  values: { windowSeconds: number; namespace: string; mode?: 'warn' | 'enforce' },
): string {
  return template
    .replaceAll('{{window}}', promDuration(values.windowSeconds))
    .replaceAll('{{mode}}', values.mode ?? '')
    .replaceAll('{{namespace}}', escapeLabelValue(values.namespace));
}

/**
 * A window as a PromQL duration. Whole seconds, at least one: PromQL rejects a zero range and a fraction
 * (`1.5s`) is not PromQL duration syntax.
 */
export function promDuration(seconds: number): string {
  const whole = Number.isFinite(seconds) ? Math.max(1, Math.round(seconds)) : 1;
  return `${whole}s`;
}

/**
 * The namespace goes inside a double-quoted label matcher. Kubernetes namespace names are DNS labels, so this
 * never changes a real one; it keeps a stray quote from ending the string and rewriting the query.
 */
function escapeLabelValue(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"');
}
