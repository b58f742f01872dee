/**
 * The fuzz suite in `warn` mode without credentials (some requests carry a session token an outside
 * dashboard minted for an arbitrary `sub`): what anyone on the network can send while a deployment is
 * being moved to `enforce`. See docs/testing.md to run it with more cases or a given seed.
 */
import { defineFuzzSuite } from './define-suite.ts';

await defineFuzzSuite('warn', 'test/fuzz/warn.test.ts');
