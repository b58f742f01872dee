/**
 * One base error for the whole gateway (docs/errors.md): every error a client may see carries a
 * stable dotted `code` and an HTTP status, and is turned into RFC 9457 problem+json by one mapper
 * (`problem.ts`). Plugins never subclass per error: they declare a catalogue (`catalogue.ts`) and create
 * errors from it, so the set of codes a plugin can answer with is known at boot and documented.
 */
export interface ValidationIssue {
  /** Dotted path into the request, starting with the part: `body.email`, `params.id`, `query.page`. */
  path: string;
  message: string;
}

export interface GatewayErrorOptions {
  detail?: string;
  /** Extra RFC 9457 extension members (never secrets: they are sent to the client). */
  extensions?: Record<string, unknown>;
  /** Response headers that belong to this error, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: string, status: number, title: string, options: GatewayErrorOptions = {}) {
    super(`${code}: ${options.detail ?? title}`, { cause: options.cause });
    this.code = code;
    this.status = status;
    this.title = title;
    this.detail = options.detail ?? title;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }
}

/** True for errors the gateway raised on purpose (as opposed to bugs and driver failures). */
export function isGatewayError(err: unknown): err is GatewayError {
  return err instanceof GatewayError;
}
