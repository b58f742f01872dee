import { z } from 'zod';

/** The environment variables the auth plugin reads (none yet). */
export const authConfigSchema = z.object({});
