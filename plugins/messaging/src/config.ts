import { z } from 'zod';

/** The environment variables the messaging plugin reads (none yet). */
export const messagingConfigSchema = z.object({});
