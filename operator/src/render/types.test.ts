import type { V1ConfigMap, V1EnvVar } from '@kubernetes/client-node';
import { describe, expectTypeOf, it } from 'vitest';
import type { EnvConfigMap } from './config-map.ts';
import type { SecretEnvEntry } from './env.ts';

/** The rendered objects go to the client library as they are (checked by `tsc`). */
describe('rendered objects', () => {
  it('are client-node objects', () => {
    expectTypeOf<EnvConfigMap>().toExtend<V1ConfigMap>();
    expectTypeOf<SecretEnvEntry>().toExtend<V1EnvVar>();
  });
});
