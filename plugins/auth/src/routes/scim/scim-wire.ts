import type { Response } from 'express';
import type { ErrorFormat } from '../../../../../gateway/src/plugin-api.ts';
import { URN } from '../../domain/scim/attributes.ts';

/** The SCIM endpoints' base path; identity providers are given APP_BASE_URL followed by it. */
export const SCIM_BASE_PATH = '/api/v1/scim/v2';
export const SCIM_MEDIA_TYPE = 'application/scim+json';

/**
 * Each error's `scimType` (RFC 7644, "Error Response"): the auth plugin's SCIM codes, and the core's codes for
 * requests that are not well-formed JSON or hold text that cannot be stored.
 */
const SCIM_TYPES: Readonly<Record<string, string>> = {
  'auth.scim.invalid_filter': 'invalidFilter',
  'auth.scim.invalid_syntax': 'invalidSyntax',
  'auth.scim.invalid_value': 'invalidValue',
  'auth.scim.invalid_path': 'invalidPath',
  'auth.scim.no_target': 'noTarget',
  'auth.scim.mutability': 'mutability',
  'auth.scim.uniqueness': 'uniqueness',
  'request.malformed_json': 'invalidSyntax',
  'request.too_deep': 'invalidSyntax',
  'request.corrupt_encoding': 'invalidSyntax',
  'request.invalid_text': 'invalidValue',
  'validation.failed': 'invalidValue',
};

/**
 * SCIM's error document for every error of the SCIM routes (README, "SCIM provisioning"): `status` as a string,
 * `scimType` where SCIM defines one, and the error's detail. The gateway's code is not in it (clients are built
 * to the RFC); the request id is in `X-Request-Id`, as on every answer.
 */
export const scimErrorFormat: ErrorFormat = {
  mediaType: SCIM_MEDIA_TYPE,
  render(error) {
    const scimType = SCIM_TYPES[error.code];
    return {
      schemas: [URN.error],
      status: String(error.status),
      ...(scimType ? { scimType } : {}),
      detail: error.detail,
    };
  },
};

/** Sends a SCIM document (`application/scim+json`). */
export function sendScim(res: Response, status: number, body: unknown): void {
  res.status(status);
  res.setHeader('Content-Type', `${SCIM_MEDIA_TYPE}; charset=utf-8`);
  res.end(JSON.stringify(body));
}
