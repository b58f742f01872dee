import { z } from 'zod';

/** Items per page when a list request names no `limit`, and the most it may name (README, "Pagination"). */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/**
 * The `limit` query parameter of every staff list: it arrives as text, digits only, then 1 to 100, and 25 when
 * absent. The document shows it as the integer it means, so clients generated from it send a number.
 */
export const pageLimit = z
  .string()
  .regex(/^[0-9]{1,3}$/, { error: `must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  .transform(Number)
  .pipe(z.int().min(1).max(MAX_PAGE_SIZE))
  .optional()
  .transform((value) => value ?? DEFAULT_PAGE_SIZE)
  .meta({
    description: `Items per page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`,
    override: ({ jsonSchema }) => {
      delete jsonSchema.pattern;
      Object.assign(jsonSchema, {
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_PAGE_SIZE,
        example: DEFAULT_PAGE_SIZE,
      });
    },
  });
