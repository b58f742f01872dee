import { defineErrors } from '../../../gateway/src/errors/catalogue.ts';

/** Every error the messaging plugin answers with; each code is documented in ../README.md. */
export const messagingErrors = defineErrors({});
