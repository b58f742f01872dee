/**
 * The fuzz suite in `enforce` mode, with every credential a route may ask for (test/fuzz/credentials.ts):
 * requests get past authentication into validation, handlers and SQL. See docs/testing.md to run it with
 * more cases or a given seed.
 */
import { defineFuzzSuite } from './define-suite.ts';

await defineFuzzSuite('enforce', 'test/fuzz/enforce.test.ts');
