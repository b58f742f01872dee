/**
 * Field errors as the API server words them (`field.Error` of k8s.io/apimachinery) and the 422 `Status` they
 * become: message `<Kind>.<group> "<name>" is invalid: [<error>, ...]`, one `details.causes` entry per error.
 */
import { KubeError } from '../status.ts';

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError';

export interface FieldError {
  type: FieldErrorType;
  /** The field path, e.g. `spec.apiAuth.mode`; `<nil>` for an error about the whole object. */
  field: string;
  /** The bad value, printed as Go prints it; undefined when the error type does not print one. */
  value?: unknown;
  /** The value already printed the Go way, for values that are Go structs (a CRD's validation rule). */
  printedValue?: string;
  detail: string;
}

const TYPE_WORDS: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
};

/** The types whose message never shows the value. */
const VALUELESS = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

/** A value as Go's `%v`/`%q`/`%#v` print it in a field error: strings quoted, numbers and booleans bare. */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return '"null"';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goValue).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
  return `map[string]interface {}{${entries.map(([k, v]) => `${JSON.stringify(k)}:${goValue(v)}`).join(', ')}}`;
}

/** The error without its field: `Invalid value: "x": detail`, `Required value`, ... */
export function errorBody(error: FieldError): string {
  const words = TYPE_WORDS[error.type];
  const shown = error.printedValue ?? (error.value === undefined ? undefined : goValue(error.value));
  const head = VALUELESS.has(error.type) || shown === undefined ? words : `${words}: ${shown}`;
  return error.detail ? `${head}: ${error.detail}` : head;
}

export function errorText(error: FieldError): string {
  return `${error.field}: ${errorBody(error)}`;
}

/** The 422 Invalid Status for a kind (`{group, kind}`), a name and its field errors. */
export function invalid(
  kind: { group: string; kind: string },
  name: string,
  errors: FieldError[],
): KubeError {
  const qualified = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  // The aggregate drops repeated messages, and brackets more than one.
  const texts = [...new Set(errors.map(errorText))];
  const joined = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  return new KubeError(422, `${qualified} "${name}" is invalid: ${joined}`, 'Invalid', {
    name,
    ...(kind.group ? { group: kind.group } : {}),
    kind: kind.kind,
    causes: errors.map((error) => ({ reason: error.type, message: errorBody(error), field: error.field })),
  });
}
