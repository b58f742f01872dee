import type { ZodOpenApiPathsObject } from 'zod-openapi';

/** The feedback routes' operations in the staff API document (openapi/document.ts). */
export function feedbackPaths(): ZodOpenApiPathsObject {
  return {};
}
