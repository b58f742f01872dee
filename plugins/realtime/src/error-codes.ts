import { defineErrors } from '../../../gateway/src/errors/catalogue.ts';

/** Every error the realtime plugin answers with; each code is documented in ../README.md. */
export const realtimeErrors = defineErrors({});
