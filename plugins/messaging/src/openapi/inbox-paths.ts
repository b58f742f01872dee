import type { ZodOpenApiPathsObject } from 'zod-openapi';

/** The inbox routes' operations in the staff API document (openapi/document.ts). */
export function inboxPaths(): ZodOpenApiPathsObject {
  return {};
}
