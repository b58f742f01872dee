import { z } from 'zod';

/** The environment variables the kyc plugin reads (none yet). */
export const kycConfigSchema = z.object({});
