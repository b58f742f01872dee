import { defineErrors } from '../../../gateway/src/errors/catalogue.ts';

/** Every error the auth plugin answers with; each code is documented in ../README.md (a test checks). */
export const authErrors = defineErrors({
  'auth.busy': { status: 503, title: 'Too many sign-ins at once; try again shortly' },
});
