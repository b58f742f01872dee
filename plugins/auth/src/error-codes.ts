import { defineErrors } from '../../../gateway/src/errors/catalogue.ts';

/** Every error the auth plugin answers with; each code is documented in ../README.md. */
export const authErrors = defineErrors({});
