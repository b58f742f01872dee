/**
 * The kinds of verification a tenant can start. The public `type` enum (and the OpenAPI document) is
 * this list, so a new kind is one entry here plus a provider that can check it.
 */
export const VERIFICATION_TYPES = {
  INDIVIDUAL_KTP: 'A person, checked against their Indonesian identity card (KTP)',
} as const;

export type VerificationType = keyof typeof VERIFICATION_TYPES;
export const VERIFICATION_TYPE_NAMES = Object.keys(VERIFICATION_TYPES) as [
  VerificationType,
  ...VerificationType[],
];
