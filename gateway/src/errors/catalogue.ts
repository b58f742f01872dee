import { GatewayError, type GatewayErrorOptions } from './gateway-error.ts';

/** One row of an error catalogue: the HTTP status and a short, stable, human title. */
export interface ErrorSpec {
  readonly status: number;
  readonly title: string;
}

export type ErrorSpecs = Readonly<Record<string, ErrorSpec>>;

/**
 * A catalogue of the errors one owner (the core or a plugin) may answer with. `create` only accepts codes
 * that are in the catalogue, so a typo is a type error, and the loader can check at boot that a plugin's
 * codes carry its id as prefix (ADR 0001: the id is what tells a plugin's codes, logs and tables apart).
 */
export interface ErrorCatalogue<S extends ErrorSpecs = ErrorSpecs> {
  readonly specs: S;
  create(code: keyof S & string, options?: GatewayErrorOptions): GatewayError;
}

const CODE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

/** Declares an error catalogue; codes must be dotted lower case (docs/errors.md, "Plugin catalogues"). */
export function defineErrors<const S extends ErrorSpecs>(specs: S): ErrorCatalogue<S> {
  for (const [code, spec] of Object.entries(specs)) {
    if (!CODE_PATTERN.test(code)) throw new Error(`error code "${code}" is not dotted lower case`);
    if (!Number.isInteger(spec.status) || spec.status < 400 || spec.status > 599) {
      throw new Error(`error code "${code}" has status ${spec.status}, expected 4xx or 5xx`);
    }
  }
  return {
    specs,
    create(code, options) {
      const spec = specs[code];
      if (!spec) throw new Error(`unknown error code "${code}"`);
      return new GatewayError(code, spec.status, spec.title, options);
    },
  };
}
