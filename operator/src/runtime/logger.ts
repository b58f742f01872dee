/**
 * The few log calls the runtime makes, shaped like pino's (`log.warn({ fields }, 'message')`) so the CLI can
 * hand it a pino logger and tests a silent one.
 */
export interface RuntimeLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

const ignore = (): void => undefined;

export const silentLogger: RuntimeLogger = { debug: ignore, info: ignore, warn: ignore, error: ignore };

/** A message and, for Kubernetes API errors, the HTTP status, for log fields. */
export function describeError(error: unknown): { error: string; code?: number } {
  const code = statusCodeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined ? { error: message } : { error: message, code };
}

/** The HTTP status of a client error: `ApiException.code`, or `statusCode` on a failed watch request. */
export function statusCodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code === 'number') return code;
  if (typeof statusCode === 'number') return statusCode;
  return undefined;
}
