import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from './decide.ts';
import { HISTORY_LIMIT } from './history.ts';
import {
  exampleSettings,
  failedQuery,
  initialState,
  okWindow,
  simulate,
  type SimulatedStep,
  type StepContext,
} from './simulation.ts';
import {
  DEGRADED_REASONS,
  PHASE3_REASONS,
  PROMOTABLE_REASONS,
  type Analysis,
  type ApiAuthMode,
  type RolloutSettings,
  type RolloutState,
} from './types.ts';

// The rollout scenarios (a)-(f) of docs/adr/0007-operator.md, "Requirements", on a virtual clock: the decision
// runs every analysis interval (5 min) over a synthetic metric series, carrying its state, as the reconciler
// will. Then properties over any series.

const T0 = new Date('2026-03-02T00:00:00.000Z');
const HOUR = 3600;
const DAY = 24 * HOUR;
const INTERVAL = 300;
const settings = exampleSettings({ analysisIntervalSeconds: INTERVAL });
const healthy = okWindow(3000, 0.0003);

/** Steps needed to cover `seconds` of virtual time, both ends included. */
function stepsFor(seconds: number): number {
  return seconds / INTERVAL + 1;
}

function transitions(trace: SimulatedStep[]) {
  return trace.flatMap((s) => (s.decision.transition === null ? [] : [s.decision.transition]));
}

/** The first step that left the simulation in `mode`. */
function firstIn(trace: SimulatedStep[], mode: ApiAuthMode): SimulatedStep | undefined {
  return trace.find((s) => s.decision.state.effectiveMode === mode);
}

function lastDecision(trace: SimulatedStep[]) {
  const last = trace.at(-1);
  if (last === undefined) throw new Error('empty trace');
  return last.decision;
}

describe('(a) healthy warn traffic with enough samples', () => {
  const trace = simulate({
    settings,
    state: initialState('disabled', T0),
    start: T0,
    steps: stepsFor(8 * DAY + HOUR),
    // Disabled runs no analysis; from then on every window is healthy.
    window: ({ state }) => (state.effectiveMode === 'disabled' ? null : healthy),
  });

  it('enters warn at once, then promotes to enforce exactly when the 24 h soak ends, not before', () => {
    expect(trace[0]?.decision.state.effectiveMode).toBe('warn');
    const promoted = firstIn(trace, 'enforce');
    expect(promoted?.elapsed).toBe(DAY);
    const before = trace.filter((s) => s.elapsed > 0 && s.elapsed < DAY);
    expect(before).toHaveLength(DAY / INTERVAL - 1);
    for (const step of before) {
      expect(step.decision.state.effectiveMode).toBe('warn');
      expect(step.decision.promotable.reason).toBe('SoakInProgress');
    }
  });

  it('records both transitions, with the figures of the promoting window', () => {
    expect(transitions(trace)).toEqual([
      { at: T0.toISOString(), from: 'disabled', to: 'warn', reason: 'DesiredModeRaised', figures: {} },
      {
        at: new Date(T0.getTime() + DAY * 1000).toISOString(),
        from: 'warn',
        to: 'enforce',
        reason: 'Promoted',
        figures: { gatedRequests: 3000, failureRatio: 0.0003 },
      },
    ]);
  });

  it('reports phase 3 readiness once enforce has soaked 7 days', () => {
    const ready = trace.find((s) => s.decision.phase3Ready.status === 'True');
    expect(ready?.elapsed).toBe(DAY + 7 * DAY);
    expect(ready?.decision.phase3Ready.reason).toBe('EnforceSoaked');
    expect(lastDecision(trace).degraded.reason).toBe('Healthy');
  });
});

describe('(b) low traffic', () => {
  const trace = simulate({
    settings,
    state: initialState('warn', T0),
    start: T0,
    steps: stepsFor(4 * DAY),
    window: () => okWindow(120, 0),
  });

  it('stays in warn: a spotless ratio over too few requests is inconclusive (InsufficientSamples)', () => {
    expect(transitions(trace)).toEqual([]);
    const soakedNotMax = trace.filter((s) => s.elapsed >= DAY && s.elapsed <= 72 * HOUR);
    expect(soakedNotMax.length).toBeGreaterThan(500);
    for (const step of soakedNotMax) {
      expect(step.decision.promotable).toMatchObject({ status: 'False', reason: 'InsufficientSamples' });
    }
  });

  it('asks a human once the maximum warn soak is over (MaxSoakExceeded), still in warn', () => {
    const past = trace.filter((s) => s.elapsed > 72 * HOUR);
    expect(past.length).toBeGreaterThan(0);
    for (const step of past) {
      expect(step.decision.state.effectiveMode).toBe('warn');
      expect(step.decision.promotable.reason).toBe('MaxSoakExceeded');
      expect(step.decision.promotable.message).toContain('fewer than the 1000 required');
    }
  });
});

describe('(c) would-deny ratio above the threshold', () => {
  it('stays in warn with RatioTooHigh for as long as the ratio is high', () => {
    const trace = simulate({
      settings,
      state: initialState('warn', T0),
      start: T0,
      steps: stepsFor(48 * HOUR),
      window: () => okWindow(8000, 0.004),
    });
    expect(transitions(trace)).toEqual([]);
    for (const step of trace) expect(step.decision.promotable.reason).toBe('RatioTooHigh');
    expect(lastDecision(trace).promotable.message).toContain('0.4%');
  });

  it('promotes on the first good window after the clients are fixed (soak already over)', () => {
    const trace = simulate({
      settings,
      state: initialState('warn', T0),
      start: T0,
      steps: stepsFor(48 * HOUR),
      window: ({ elapsed }) => (elapsed < 30 * HOUR ? okWindow(8000, 0.004) : healthy),
    });
    expect(firstIn(trace, 'enforce')?.elapsed).toBe(30 * HOUR);
  });
});

describe('(d) enforce with a failure spike', () => {
  const N = settings.consecutiveFailuresBeforeFallback;
  const spike = okWindow(6000, 0.08);
  const spikeFrom = 2 * HOUR;

  /** Healthy enforce traffic with `spikes` bad windows from 2 h, then healthy again. */
  function run(spikes: number, extra: (ctx: StepContext) => Analysis | null = () => null) {
    return simulate({
      settings,
      state: initialState('enforce', T0),
      start: T0,
      steps: stepsFor(2 * DAY),
      window: (ctx) => {
        const index = (ctx.elapsed - spikeFrom) / INTERVAL;
        if (index >= 0 && index < spikes) return spike;
        return extra(ctx) ?? healthy;
      },
    });
  }

  it(`falls back to warn on the ${N}th consecutive bad interval, with a history entry and Degraded=True`, () => {
    const trace = run(N);
    const fell = firstIn(trace, 'warn');
    expect(fell?.elapsed).toBe(spikeFrom + (N - 1) * INTERVAL);
    expect(fell?.decision.transition).toEqual({
      at: fell?.at.toISOString(),
      from: 'enforce',
      to: 'warn',
      reason: 'FallbackToWarn',
      figures: { gatedRequests: 6000, failureRatio: 0.08, consecutiveBadChecks: N },
    });
    expect(fell?.decision.degraded).toMatchObject({ status: 'True', reason: 'FallbackToWarn' });
  });

  it(`does not fall back after ${N - 1} bad intervals`, () => {
    const trace = run(N - 1);
    expect(transitions(trace)).toEqual([]);
    expect(trace.find((s) => s.elapsed === spikeFrom + (N - 2) * INTERVAL)?.decision.degraded).toMatchObject({
      status: 'False',
      reason: 'BadChecks',
    });
    expect(lastDecision(trace).degraded.reason).toBe('Healthy');
  });

  it('does not add up bad intervals separated by a good one', () => {
    const trace = simulate({
      settings,
      state: initialState('enforce', T0),
      start: T0,
      steps: stepsFor(6 * HOUR),
      // Runs of N-1 bad windows, each followed by one good window.
      window: ({ step }) => (step % N === N - 1 ? healthy : spike),
    });
    expect(transitions(trace)).toEqual([]);
  });

  it('still counts bad intervals as consecutive across windows with too few samples', () => {
    const trace = simulate({
      settings,
      state: initialState('enforce', T0),
      start: T0,
      steps: stepsFor(HOUR),
      window: ({ step }) => (step % 2 === 0 ? spike : okWindow(20, 0)),
    });
    expect(firstIn(trace, 'warn')?.step).toBe((N - 1) * 2);
  });

  it('re-arms: after the fallback, re-promotion needs a full new warn soak with passing gates', () => {
    const trace = run(N);
    const fell = firstIn(trace, 'warn');
    const back = trace.find((s) => s.decision.transition?.reason === 'Promoted');
    expect(back?.elapsed).toBe((fell?.elapsed ?? Number.NaN) + DAY);
    const between = trace.filter((s) => s.elapsed > (fell?.elapsed ?? 0) && s.elapsed < (back?.elapsed ?? 0));
    for (const step of between) {
      expect(step.decision.degraded).toMatchObject({ status: 'True', reason: 'FallbackToWarn' });
      expect(step.decision.promotable.reason).toBe('SoakInProgress');
    }
    expect(back?.decision.degraded.reason).toBe('Healthy');
  });
});

describe('(e) SRE rollback', () => {
  /** Healthy traffic from disabled with a spike at 30 h (a fallback), and a rollback requested at `rollbackAt`. */
  function run(rollbackAt: number, how: 'annotation' | 'mode') {
    return simulate({
      settings: ({ elapsed }) =>
        elapsed < rollbackAt
          ? settings
          : exampleSettings(how === 'annotation' ? { rollbackRequested: true } : { desiredMode: 'disabled' }),
      state: initialState('disabled', T0),
      start: T0,
      steps: stepsFor(3 * DAY),
      window: ({ elapsed }) => (elapsed >= 30 * HOUR && elapsed < 31 * HOUR ? okWindow(5000, 0.2) : healthy),
    });
  }

  const phases: [string, number, ApiAuthMode, string][] = [
    ['warn, soaking', 2 * HOUR, 'warn', 'SoakInProgress'],
    ['enforce', 28 * HOUR, 'enforce', 'Healthy'],
    ['enforce, failing', 30 * HOUR + INTERVAL, 'enforce', 'BadChecks'],
    ['warn after a fallback', 40 * HOUR, 'warn', 'FallbackToWarn'],
  ];

  it.each(phases)('goes to disabled at once from %s', (_name, rollbackAt, mode, condition) => {
    for (const how of ['annotation', 'mode'] as const) {
      const trace = run(rollbackAt, how);
      const before = trace.find((s) => s.elapsed === rollbackAt - INTERVAL)?.decision;
      expect(before?.state.effectiveMode).toBe(mode);
      expect([before?.promotable.reason, before?.degraded.reason]).toContain(condition);
      const rolled = trace.find((s) => s.elapsed === rollbackAt);
      expect(rolled?.decision.transition).toMatchObject({
        from: mode,
        to: 'disabled',
        reason: how === 'annotation' ? 'RollbackRequested' : 'DesiredModeDisabled',
      });
      // And it stays there, whatever the metrics say.
      for (const step of trace.filter((s) => s.elapsed >= rollbackAt)) {
        expect(step.decision.state.effectiveMode).toBe('disabled');
      }
    }
  });

  it('starts over from warn with a fresh soak when the rollback request is withdrawn', () => {
    const trace = simulate({
      settings: ({ elapsed }) =>
        elapsed >= 28 * HOUR && elapsed < 29 * HOUR ? exampleSettings({ rollbackRequested: true }) : settings,
      state: initialState('disabled', T0),
      start: T0,
      steps: stepsFor(3 * DAY),
      window: () => healthy,
    });
    expect(transitions(trace).map((t) => `${t.from}→${t.to} ${t.reason}`)).toEqual([
      'disabled→warn DesiredModeRaised',
      'warn→enforce Promoted',
      'enforce→disabled RollbackRequested',
      'disabled→warn DesiredModeRaised',
      'warn→enforce Promoted',
    ]);
    expect(trace.filter((s) => s.decision.transition?.reason === 'Promoted').map((s) => s.elapsed)).toEqual([
      DAY,
      29 * HOUR + DAY,
    ]);
  });
});

describe('(f) Prometheus unreachable', () => {
  const outage = failedQuery('Get "http://prometheus:9090/api/v1/query": dial tcp: connection refused');

  it('never promotes during the outage, says why, and promotes on the first good window after it', () => {
    const trace = simulate({
      settings,
      state: initialState('warn', T0),
      start: T0,
      steps: stepsFor(2 * DAY),
      window: ({ elapsed }) => (elapsed >= 10 * HOUR && elapsed < 40 * HOUR ? outage : healthy),
    });
    const during = trace.filter((s) => s.elapsed >= 10 * HOUR && s.elapsed < 40 * HOUR);
    for (const [i, step] of during.entries()) {
      expect(step.decision.state.effectiveMode).toBe('warn');
      expect(step.decision.state.consecutiveQueryErrors).toBe(i + 1);
      expect(step.decision.promotable).toMatchObject({ status: 'False', reason: 'MetricsUnavailable' });
      expect(step.decision.promotable.message).toContain('connection refused');
    }
    expect(firstIn(trace, 'enforce')?.elapsed).toBe(40 * HOUR);
  });

  it('never falls back from enforce either, and Degraded says the metrics are unknown', () => {
    const N = settings.consecutiveFailuresBeforeFallback;
    const trace = simulate({
      settings,
      state: initialState('enforce', T0),
      start: T0,
      steps: stepsFor(DAY),
      // N-1 bad windows, then a day-long outage.
      window: ({ step }) => (step < N - 1 ? okWindow(5000, 0.5) : outage),
    });
    expect(transitions(trace)).toEqual([]);
    expect(lastDecision(trace).state.consecutiveBadChecks).toBe(N - 1);
    expect(lastDecision(trace).degraded).toMatchObject({ status: 'Unknown', reason: 'MetricsUnavailable' });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Properties: any series of analyses, settings changes and clock jumps.

const RANK: Record<ApiAuthMode, number> = { disabled: 0, warn: 1, enforce: 2 };
const SRE_DOWNWARD = new Set(['RollbackRequested', 'DesiredModeDisabled', 'DesiredModeLowered']);

/** Short soaks so that promotions, fallbacks and maximum soaks all happen within a few hundred steps. */
const settingsArb = fc.record({
  desiredMode: fc.constantFrom<ApiAuthMode>('disabled', 'warn', 'enforce', 'enforce', 'enforce'),
  automaticPromotion: fc.boolean(),
  minWarnSoakSeconds: fc.constantFrom(0, 600, 3600),
  maxWarnSoakSeconds: fc.constantFrom(3600, 3 * 3600),
  minEnforceSoakSeconds: fc.constantFrom(0, 2 * 3600),
  maxWouldDenyRatio: fc.constantFrom(0, 0.001, 0.01),
  minGatedRequests: fc.constantFrom(0, 1, 1000),
  analysisIntervalSeconds: fc.constant(INTERVAL),
  consecutiveFailuresBeforeFallback: fc.integer({ min: 0, max: 4 }),
  rollbackRequested: fc.oneof(
    { weight: 1, arbitrary: fc.constant(true) },
    { weight: 12, arbitrary: fc.constant(false) },
  ),
});

const analysisArb: fc.Arbitrary<Analysis | null> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((e) => failedQuery(e)) },
  {
    weight: 6,
    arbitrary: fc
      .record({
        gated: fc.integer({ min: 0, max: 5000 }),
        ratio: fc.double({ min: 0, max: 0.02, noNaN: true }),
      })
      .map(({ gated, ratio }) => okWindow(gated, ratio)),
  },
  { weight: 1, arbitrary: fc.constantFrom(okWindow(3000, Number.NaN), okWindow(-5, 0), okWindow(3000, 2)) },
);

/** A run of steps sharing one window and one set of settings, as real regimes come in runs. */
const segmentArb = fc.record({
  settings: settingsArb,
  approve: fc.boolean(),
  analysis: analysisArb,
  length: fc.integer({ min: 1, max: 30 }),
  /** Seconds between steps: the interval, or a jump (the operator was down). */
  advance: fc.oneof({ weight: 5, arbitrary: fc.constant(INTERVAL) }, fc.integer({ min: 0, max: 6 * 3600 })),
});

const runArb = fc.record({
  start: fc.constantFrom<ApiAuthMode>('disabled', 'warn', 'enforce'),
  segments: fc.array(segmentArb, { minLength: 1, maxLength: 25 }),
});

interface Checked {
  settings: RolloutSettings;
  before: RolloutState;
  analysis: Analysis | null;
  now: Date;
}

function validOk(analysis: Analysis | null): analysis is Extract<Analysis, { ok: true }> {
  return (
    analysis !== null &&
    analysis.ok &&
    Number.isFinite(analysis.gatedRequests) &&
    analysis.gatedRequests >= 0 &&
    analysis.failureRatio >= 0 &&
    analysis.failureRatio <= 1
  );
}

/** Every invariant of one step; throws (fast-check then shrinks the run) on the first broken one. */
function checkStep(
  { settings: s, before, analysis, now }: Checked,
  counts: Map<string, number>,
): RolloutState {
  const d = decide(s, before, analysis, now);
  const after = d.state;
  const from = before.effectiveMode;
  const to = after.effectiveMode;

  // Deterministic.
  expect(decide(s, before, analysis, now)).toEqual(d);

  // Never skips a step upward.
  expect(RANK[to] - RANK[from]).toBeLessThanOrEqual(1);

  // Never above the desired mode; a rollback request means disabled.
  expect(RANK[to]).toBeLessThanOrEqual(RANK[s.desiredMode]);
  if (s.rollbackRequested) expect(to).toBe('disabled');

  // The history records every change, and only changes, bounded.
  if (from === to) {
    expect(d.transition).toBeNull();
    expect(after.history).toEqual(before.history);
  } else {
    expect(d.transition).toMatchObject({ from, to, at: now.toISOString() });
    expect(after.history.at(-1)).toEqual(d.transition);
    expect(after.history).toHaveLength(Math.min(before.history.length + 1, HISTORY_LIMIT));
    expect(after.since).toBe(now.toISOString());
    counts.set(d.transition?.reason ?? '', (counts.get(d.transition?.reason ?? '') ?? 0) + 1);
  }

  // warn → enforce only on an ok analysis this step meeting all three conditions, and an approval.
  if (from === 'warn' && to === 'enforce') {
    expect(validOk(analysis)).toBe(true);
    if (!validOk(analysis)) throw new Error('unreachable');
    expect(analysis.gatedRequests).toBeGreaterThanOrEqual(Math.max(1, s.minGatedRequests));
    expect(analysis.failureRatio).toBeLessThanOrEqual(s.maxWouldDenyRatio);
    const soaked = (now.getTime() - Date.parse(before.since)) / 1000;
    expect(soaked).toBeGreaterThanOrEqual(s.minWarnSoakSeconds);
    const human =
      s.promotionRequestedAt !== undefined && Date.parse(s.promotionRequestedAt) >= Date.parse(before.since);
    expect(human || (s.automaticPromotion && soaked <= s.maxWarnSoakSeconds)).toBe(true);
  }

  // Downward only by a human or by a fallback on bad ok checks, never on query errors.
  if (RANK[to] < RANK[from]) {
    const reason = d.transition?.reason ?? '';
    if (!SRE_DOWNWARD.has(reason)) {
      expect(reason).toBe('FallbackToWarn');
      expect(validOk(analysis) && analysis.failureRatio > s.maxWouldDenyRatio).toBe(true);
      expect(before.consecutiveBadChecks + 1).toBeGreaterThanOrEqual(
        Math.max(1, s.consecutiveFailuresBeforeFallback),
      );
    }
  }

  // Conditions use the documented vocabulary.
  expect(PROMOTABLE_REASONS).toContain(d.promotable.reason);
  expect(DEGRADED_REASONS).toContain(d.degraded.reason);
  expect(PHASE3_REASONS).toContain(d.phase3Ready.reason);
  expect(d.degraded.status === 'True').toBe(
    to === 'warn' && after.history.at(-1)?.reason === 'FallbackToWarn',
  );
  return after;
}

describe('properties over any series of analyses', () => {
  it('the effective mode never skips a step up, never promotes without an ok analysis meeting all three gates, never exceeds the desired mode, and the history records every change', () => {
    const counts = new Map<string, number>();
    fc.assert(
      fc.property(runArb, ({ start, segments }) => {
        let now = T0;
        let state = initialState(start, T0);
        for (const segment of segments) {
          // An approval (the CLI's promote) is stamped when the segment begins and stands for all of it.
          const s = segment.approve
            ? { ...segment.settings, promotionRequestedAt: now.toISOString() }
            : segment.settings;
          for (let i = 0; i < segment.length; i += 1) {
            state = checkStep({ settings: s, before: state, analysis: segment.analysis, now }, counts);
            now = new Date(now.getTime() + segment.advance * 1000);
          }
        }
      }),
      { numRuns: 400, seed: 7 },
    );
    // The generator must reach every kind of transition, or the properties above would hold vacuously.
    for (const reason of [
      'DesiredModeRaised',
      'Promoted',
      'FallbackToWarn',
      'DesiredModeLowered',
      'DesiredModeDisabled',
      'RollbackRequested',
    ]) {
      expect(counts.get(reason) ?? 0, reason).toBeGreaterThan(0);
    }
  });
});
