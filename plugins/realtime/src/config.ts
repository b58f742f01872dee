import { z } from 'zod';

/** The environment variables the realtime plugin reads (none yet). */
export const realtimeConfigSchema = z.object({});
