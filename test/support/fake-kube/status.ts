/** Kubernetes `Status` objects, the body of every error answer (and of some deletes). */
import type { JsonObject } from './types.ts';

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Gone',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** An error the server answers with; `reason` is the Status reason clients switch on (AlreadyExists, Conflict...). */
export class KubeError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: JsonObject | undefined;

  constructor(code: number, message: string, reason?: string, details?: JsonObject) {
    super(message);
    this.name = 'KubeError';
    this.code = code;
    this.reason = reason ?? REASONS[code] ?? 'Unknown';
    this.details = details;
  }
}

export function failureStatus(error: KubeError): JsonObject {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: error.message,
    reason: error.reason,
    ...(error.details ? { details: error.details } : {}),
    code: error.code,
  };
}

export function successStatus(details: JsonObject): JsonObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

export function notFound(plural: string, name: string, group: string): KubeError {
  const qualified = group === '' ? plural : `${plural}.${group}`;
  // The real server omits an empty group from the details (the core group).
  return new KubeError(404, `${qualified} "${name}" not found`, 'NotFound', {
    name,
    ...(group === '' ? {} : { group }),
    kind: plural,
  });
}

export function conflict(plural: string, name: string): KubeError {
  return new KubeError(
    409,
    `Operation cannot be fulfilled on ${plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    'Conflict',
    { name, kind: plural },
  );
}
