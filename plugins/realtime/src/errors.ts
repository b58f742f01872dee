import { defineErrors } from '../../../gateway/src/plugin-api.ts';

/** Every error the realtime plugin answers with; each code is documented in ../README.md. */
export const realtimeErrors = defineErrors({});
