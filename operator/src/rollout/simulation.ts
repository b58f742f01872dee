import { createManualClock } from '../../../gateway/src/operator-api.ts';
import { decide } from './decide.ts';
import type { Analysis, ApiAuthMode, RolloutDecision, RolloutSettings, RolloutState } from './types.ts';

/**
 * A virtual-time harness for the rollout decision: its rules span days, so time is moved, never slept on. It runs
 * `decide` in a loop the way the reconciler will: each step reads the synthetic analysis window for the current
 * virtual time, carries the state to the next step, then advances the clock by the analysis interval.
 */

/** The phase plan's defaults (warn soak 24-72 h, enforce soak 7 d) with a 5-minute analysis interval. */
export function exampleSettings(overrides: Partial<RolloutSettings> = {}): RolloutSettings {
  return {
    desiredMode: 'enforce',
    automaticPromotion: true,
    minWarnSoakSeconds: 24 * 3600,
    maxWarnSoakSeconds: 72 * 3600,
    minEnforceSoakSeconds: 7 * 86_400,
    maxWouldDenyRatio: 0.001,
    minGatedRequests: 1000,
    analysisIntervalSeconds: 300,
    consecutiveFailuresBeforeFallback: 3,
    rollbackRequested: false,
    ...overrides,
  };
}

/** A state that entered `mode` at `since`, with no history. */
export function initialState(mode: ApiAuthMode, since: Date): RolloutState {
  return {
    effectiveMode: mode,
    since: since.toISOString(),
    consecutiveBadChecks: 0,
    consecutiveQueryErrors: 0,
    history: [],
  };
}

/** A window that the metrics query answered. */
export function okWindow(gatedRequests: number, failureRatio: number): Analysis {
  return { ok: true, gatedRequests, failureRatio };
}

/** A window whose query failed (Prometheus unreachable, a bad query...). */
export function failedQuery(error = 'connect ECONNREFUSED 127.0.0.1:9090'): Analysis {
  return { ok: false, error };
}

export interface StepContext {
  /** 0 for the first step. */
  step: number;
  at: Date;
  /** Seconds since the simulation started. */
  elapsed: number;
  /** The state the step starts from. */
  state: RolloutState;
}

export interface SimulationInput {
  settings: RolloutSettings | ((ctx: StepContext) => RolloutSettings);
  state: RolloutState;
  start: Date;
  steps: number;
  /** The synthetic analysis window of each step; null when no analysis is due. */
  window: (ctx: StepContext) => Analysis | null;
}

export interface SimulatedStep extends StepContext {
  settings: RolloutSettings;
  analysis: Analysis | null;
  decision: RolloutDecision;
}

/** Runs `steps` decisions on a virtual clock, one analysis interval apart, and returns every step. */
export function simulate(input: SimulationInput): SimulatedStep[] {
  const clock = createManualClock(input.start);
  const trace: SimulatedStep[] = [];
  let state = input.state;
  for (let step = 0; step < input.steps; step += 1) {
    const at = clock.now();
    const ctx: StepContext = { step, at, elapsed: (at.getTime() - input.start.getTime()) / 1000, state };
    const settings = typeof input.settings === 'function' ? input.settings(ctx) : input.settings;
    const analysis = input.window(ctx);
    const decision = decide(settings, state, analysis, at);
    trace.push({ ...ctx, settings, analysis, decision });
    state = decision.state;
    clock.advance(settings.analysisIntervalSeconds * 1000);
  }
  return trace;
}
