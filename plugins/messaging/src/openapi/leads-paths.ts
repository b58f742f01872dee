import type { ZodOpenApiPathsObject } from 'zod-openapi';

/** The leads routes' operations in the staff API document (openapi/document.ts). */
export function leadsPaths(): ZodOpenApiPathsObject {
  return {};
}
