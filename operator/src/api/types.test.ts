import { describe, expectTypeOf, it } from 'vitest';
import type { ApiAuthMode as GateApiAuthMode } from '../../../gateway/src/operator-api.ts';
import type { AuthMode } from '../../../plugins/auth/src/deployment/validate.ts';
import type {
  AnalysisRecord as EngineAnalysis,
  ApiAuthMode as RolloutApiAuthMode,
  RolloutHistoryEntry,
  RolloutState,
} from '../rollout/types.ts';
import type {
  AnalysisRecord as StoredAnalysis,
  ApiAuthMode,
  AuthConfigSpec,
  AuthConfigSpecInput,
  RolloutHistoryRecord,
  RolloutStatus,
} from './types.generated.ts';

/**
 * Type-level checks (run by `tsc`, which covers test files): the generated status types store the rollout
 * engine's state as it is, and the enums are the gateway's.
 */
describe('generated types', () => {
  it("status.rollout stores the rollout engine's RolloutState", () => {
    // Everything but the last analysis is the same type both ways.
    type Shared = Exclude<keyof RolloutState, 'lastAnalysis'>;
    expectTypeOf<Pick<RolloutStatus, Shared>>().toEqualTypeOf<Pick<RolloutState, Shared>>();
    expectTypeOf<RolloutHistoryRecord>().toEqualTypeOf<RolloutHistoryEntry>();
    // The engine's analysis union is stored as one record (a CRD schema has no unions): every state can be
    // written as status; rolloutStateFromStatus narrows it back.
    expectTypeOf<RolloutState>().toExtend<RolloutStatus>();
    expectTypeOf<EngineAnalysis>().toExtend<StoredAnalysis>();
    expectTypeOf<keyof StoredAnalysis>().toEqualTypeOf<
      'ok' | 'at' | 'mode' | 'gatedRequests' | 'failureRatio' | 'error'
    >();
  });

  it('modes are the gateway modes', () => {
    expectTypeOf<ApiAuthMode>().toEqualTypeOf<GateApiAuthMode>();
    expectTypeOf<ApiAuthMode>().toEqualTypeOf<RolloutApiAuthMode>();
    expectTypeOf<NonNullable<AuthConfigSpec['authMode']>>().toEqualTypeOf<AuthMode>();
  });

  it('fields with defaults are present when read, optional when written', () => {
    expectTypeOf<AuthConfigSpec['appEnv']>().toEqualTypeOf<string>();
    expectTypeOf<AuthConfigSpec['apiAuth']['rollout']['minWarnSoak']>().toEqualTypeOf<string>();
    expectTypeOf<AuthConfigSpecInput>().toHaveProperty('appEnv').toEqualTypeOf<string | undefined>();
    expectTypeOf<{ target: { name: string } }>().toExtend<AuthConfigSpecInput>();
  });
});
