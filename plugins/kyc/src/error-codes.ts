import { defineErrors } from '../../../gateway/src/errors/catalogue.ts';

/** Every error the kyc plugin answers with; each code is documented in ../README.md. */
export const kycErrors = defineErrors({});
