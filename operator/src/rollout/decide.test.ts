import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decide } from './decide.ts';
import { HISTORY_LIMIT } from './history.ts';
import { exampleSettings, failedQuery, initialState, okWindow } from './simulation.ts';
import {
  DEGRADED_REASONS,
  PHASE3_REASONS,
  PROMOTABLE_REASONS,
  TRANSITION_REASONS,
  type ApiAuthMode,
  type RolloutHistoryEntry,
  type RolloutSettings,
  type RolloutState,
} from './types.ts';

// One rule per test, each named after the rule it checks (operator/README.md, "Rollout decisions"). Scenarios
// over time series are in scenarios.test.ts.

const T0 = new Date('2026-03-02T00:00:00.000Z');
const HOUR = 3600;
const settings = exampleSettings();
const healthy = okWindow(5000, 0.0002);
const tooHigh = okWindow(5000, 0.01);

function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

/** A state that entered `mode` at T0, with the extra fields given. */
function stateIn(mode: ApiAuthMode, extra: Partial<RolloutState> = {}): RolloutState {
  return { ...initialState(mode, T0), ...extra };
}

function withSettings(overrides: Partial<RolloutSettings>): RolloutSettings {
  return exampleSettings(overrides);
}

describe('entering warn (one step at a time, the desired mode is the ceiling)', () => {
  it('goes from disabled to warn at once when warn is desired, without an analysis', () => {
    const d = decide(withSettings({ desiredMode: 'warn' }), stateIn('disabled'), null, at(60));
    expect(d.state.effectiveMode).toBe('warn');
    expect(d.state.since).toBe(at(60).toISOString());
    expect(d.transition).toEqual({
      at: at(60).toISOString(),
      from: 'disabled',
      to: 'warn',
      reason: 'DesiredModeRaised',
      figures: {},
    });
    expect(d.state.history).toEqual([d.transition]);
    expect(d.promotable).toMatchObject({ status: 'False', reason: 'SoakInProgress' });
  });

  it('enters warn, not enforce, when enforce is desired, however good the figures and however long disabled', () => {
    const d = decide(settings, stateIn('disabled'), healthy, at(30 * 86_400));
    expect(d.state.effectiveMode).toBe('warn');
    expect(d.transition?.reason).toBe('DesiredModeRaised');
  });

  it('stays disabled when disabled is desired, and says so', () => {
    const d = decide(withSettings({ desiredMode: 'disabled' }), stateIn('disabled'), healthy, at(60));
    expect(d.transition).toBeNull();
    expect(d.state.effectiveMode).toBe('disabled');
    expect(d.promotable).toMatchObject({ status: 'False', reason: 'NotInWarn' });
  });
});

describe('warn → enforce promotion criteria', () => {
  const soaked = 24 * HOUR;

  it('promotes when the soak has passed, the ratio is under the maximum and the window has enough samples', () => {
    const d = decide(settings, stateIn('warn'), healthy, at(soaked));
    expect(d.state.effectiveMode).toBe('enforce');
    expect(d.transition).toMatchObject({
      from: 'warn',
      to: 'enforce',
      reason: 'Promoted',
      figures: { gatedRequests: 5000, failureRatio: 0.0002 },
    });
    expect(d.promotable).toMatchObject({ status: 'True', reason: 'Promoted' });
  });

  it('does not promote one second before the minimum soak (SoakInProgress)', () => {
    const d = decide(settings, stateIn('warn'), healthy, at(soaked - 1));
    expect(d.transition).toBeNull();
    expect(d.promotable.status).toBe('False');
    expect(d.promotable.reason).toBe('SoakInProgress');
    expect(d.promotable.message).toContain('2026-03-03T00:00:00.000Z');
  });

  it('accepts a ratio equal to the maximum and refuses one just above it (RatioTooHigh)', () => {
    const equal = decide(settings, stateIn('warn'), okWindow(5000, 0.001), at(soaked));
    expect(equal.state.effectiveMode).toBe('enforce');
    const above = decide(settings, stateIn('warn'), okWindow(5000, 0.0011), at(soaked));
    expect(above.state.effectiveMode).toBe('warn');
    expect(above.promotable).toMatchObject({ status: 'False', reason: 'RatioTooHigh' });
    expect(above.promotable.message).toContain('0.11%');
  });

  it('treats too few gated requests as inconclusive, never a pass (InsufficientSamples)', () => {
    const exact = decide(settings, stateIn('warn'), okWindow(1000, 0), at(soaked));
    expect(exact.state.effectiveMode).toBe('enforce');
    const few = decide(settings, stateIn('warn'), okWindow(999, 0), at(soaked));
    expect(few.state.effectiveMode).toBe('warn');
    expect(few.promotable).toMatchObject({ status: 'False', reason: 'InsufficientSamples' });
  });

  it('never counts an empty window as a pass, even with minGatedRequests 0', () => {
    const d = decide(withSettings({ minGatedRequests: 0 }), stateIn('warn'), okWindow(0, 0), at(soaked));
    expect(d.state.effectiveMode).toBe('warn');
    expect(d.promotable.reason).toBe('InsufficientSamples');
  });

  it('reports a failing figure before the soak, and the soak too', () => {
    const d = decide(settings, stateIn('warn'), tooHigh, at(HOUR));
    expect(d.promotable.reason).toBe('RatioTooHigh');
    expect(d.promotable.message).toContain('of the minimum 1d');
  });

  it('never promotes between analyses, even when the last one passed (AwaitingAnalysis)', () => {
    const state = stateIn('warn', { lastAnalysis: { ...healthy, at: at(HOUR).toISOString(), mode: 'warn' } });
    const d = decide(settings, state, null, at(soaked));
    expect(d.transition).toBeNull();
    expect(d.promotable).toMatchObject({ status: 'True', reason: 'AwaitingAnalysis' });
  });

  it('reports Unknown when no analysis has run in this warn period', () => {
    const previousPeriod = { ...healthy, at: at(-HOUR).toISOString(), mode: 'warn' as const };
    const d = decide(settings, stateIn('warn', { lastAnalysis: previousPeriod }), null, at(soaked));
    expect(d.promotable).toMatchObject({ status: 'Unknown', reason: 'AwaitingAnalysis' });
  });

  it('with automatic promotion off, waits for a human when otherwise promotable (ManualPromotionRequired)', () => {
    const d = decide(withSettings({ automaticPromotion: false }), stateIn('warn'), healthy, at(soaked));
    expect(d.transition).toBeNull();
    expect(d.promotable).toMatchObject({ status: 'True', reason: 'ManualPromotionRequired' });
  });

  it("promotes on a human's approval given in this warn period, but only when the gates pass", () => {
    const approved = withSettings({
      automaticPromotion: false,
      promotionRequestedAt: at(HOUR).toISOString(),
    });
    expect(decide(approved, stateIn('warn'), healthy, at(soaked)).state.effectiveMode).toBe('enforce');
    expect(decide(approved, stateIn('warn'), tooHigh, at(soaked)).promotable.reason).toBe('RatioTooHigh');
    expect(decide(approved, stateIn('warn'), healthy, at(HOUR * 2)).promotable.reason).toBe('SoakInProgress');
  });

  it('ignores an approval given before this warn period began (it cannot outlive a fallback)', () => {
    const stale = withSettings({ automaticPromotion: false, promotionRequestedAt: at(-1).toISOString() });
    const d = decide(stale, stateIn('warn'), healthy, at(soaked));
    expect(d.transition).toBeNull();
    expect(d.promotable.reason).toBe('ManualPromotionRequired');
  });

  it('stays in warn when warn is the desired mode, reporting the gates (AtDesiredMode)', () => {
    const warnOnly = withSettings({ desiredMode: 'warn' });
    const pass = decide(warnOnly, stateIn('warn'), healthy, at(100 * HOUR));
    expect(pass.transition).toBeNull();
    expect(pass.promotable).toMatchObject({ status: 'True', reason: 'AtDesiredMode' });
    // The maximum soak is about promoting; an SRE holding warn on purpose is not past anything.
    expect(decide(warnOnly, stateIn('warn'), tooHigh, at(100 * HOUR)).promotable.reason).toBe('RatioTooHigh');
  });

  it('past the maximum warn soak, stays in warn and asks a human (MaxSoakExceeded)', () => {
    const failing = decide(settings, stateIn('warn'), tooHigh, at(72 * HOUR + 1));
    expect(failing.transition).toBeNull();
    expect(failing.promotable).toMatchObject({ status: 'False', reason: 'MaxSoakExceeded' });
    expect(failing.promotable.message).toContain('would-deny ratio 1%');
    // Automatic promotion has stopped for good in this period, even once the figures pass.
    const passing = decide(settings, stateIn('warn'), healthy, at(72 * HOUR + 1));
    expect(passing.transition).toBeNull();
    expect(passing.promotable).toMatchObject({ status: 'True', reason: 'MaxSoakExceeded' });
    // A human's approval still promotes, on passing gates.
    const approved = withSettings({ promotionRequestedAt: at(73 * HOUR).toISOString() });
    expect(decide(approved, stateIn('warn'), healthy, at(73 * HOUR)).state.effectiveMode).toBe('enforce');
  });

  it('still promotes exactly at the maximum warn soak', () => {
    expect(decide(settings, stateIn('warn'), healthy, at(72 * HOUR)).state.effectiveMode).toBe('enforce');
  });
});

describe('metric query errors', () => {
  it('never promote, count separately and put the error in the condition (MetricsUnavailable)', () => {
    const state = stateIn('warn', { consecutiveQueryErrors: 2 });
    const d = decide(settings, state, failedQuery('Prometheus: 503 Service Unavailable'), at(48 * HOUR));
    expect(d.transition).toBeNull();
    expect(d.state.consecutiveQueryErrors).toBe(3);
    expect(d.promotable.status).toBe('False');
    expect(d.promotable.reason).toBe('MetricsUnavailable');
    expect(d.promotable.message).toContain('Prometheus: 503 Service Unavailable');
    expect(d.promotable.message).toContain('3 in a row');
  });

  it('take precedence over the maximum soak in the condition', () => {
    const d = decide(settings, stateIn('warn'), failedQuery(), at(100 * HOUR));
    expect(d.promotable.reason).toBe('MetricsUnavailable');
  });

  it('reset their count on the next answered query', () => {
    const d = decide(settings, stateIn('warn', { consecutiveQueryErrors: 4 }), tooHigh, at(HOUR));
    expect(d.state.consecutiveQueryErrors).toBe(0);
  });

  it('include figures that cannot be right (NaN, negative, a ratio above 1)', () => {
    for (const bad of [
      okWindow(5000, Number.NaN),
      okWindow(-1, 0),
      okWindow(5000, 1.5),
      okWindow(Infinity, 0),
    ]) {
      const d = decide(settings, stateIn('warn'), bad, at(48 * HOUR));
      expect(d.state.effectiveMode).toBe('warn');
      expect(d.promotable.reason).toBe('MetricsUnavailable');
      expect(d.promotable.message).toContain('invalid analysis figures');
    }
    // In enforce a NaN ratio would compare as "not above the threshold", a good check; it must count as an error.
    const enforcing = stateIn('enforce', { consecutiveBadChecks: 2 });
    const d = decide(settings, enforcing, okWindow(5000, Number.NaN), at(HOUR));
    expect(d.state.consecutiveBadChecks).toBe(2);
    expect(d.state.consecutiveQueryErrors).toBe(1);
  });

  it('never trigger a fallback from enforce, whatever their number', () => {
    const state = stateIn('enforce', { consecutiveBadChecks: 2 });
    const d = decide(settings, state, failedQuery(), at(HOUR));
    expect(d.state.effectiveMode).toBe('enforce');
    expect(d.state.consecutiveBadChecks).toBe(2);
    expect(d.degraded.status).toBe('Unknown');
    expect(d.degraded.reason).toBe('MetricsUnavailable');
    expect(d.degraded.message).toContain('ECONNREFUSED');
  });
});

describe('enforce failure checks and the fallback to warn', () => {
  it('counts a bad check (ratio above the maximum over enough samples)', () => {
    const d = decide(settings, stateIn('enforce'), tooHigh, at(HOUR));
    expect(d.state.consecutiveBadChecks).toBe(1);
    expect(d.degraded).toMatchObject({ status: 'False', reason: 'BadChecks' });
    expect(d.degraded.message).toContain('1 of 3');
  });

  it('resets the count on a good check', () => {
    const d = decide(settings, stateIn('enforce', { consecutiveBadChecks: 2 }), healthy, at(HOUR));
    expect(d.state.consecutiveBadChecks).toBe(0);
    expect(d.degraded).toMatchObject({ status: 'False', reason: 'Healthy' });
  });

  it('leaves the count alone on an inconclusive window (too few samples) or no analysis', () => {
    const state = stateIn('enforce', { consecutiveBadChecks: 2 });
    expect(decide(settings, state, okWindow(10, 1), at(HOUR)).state.consecutiveBadChecks).toBe(2);
    expect(decide(settings, state, okWindow(10, 0), at(HOUR)).state.consecutiveBadChecks).toBe(2);
    expect(decide(settings, state, null, at(HOUR)).state.consecutiveBadChecks).toBe(2);
  });

  it('falls back to warn after N consecutive bad checks, with the figures in the history', () => {
    const d = decide(
      settings,
      stateIn('enforce', { consecutiveBadChecks: 2 }),
      okWindow(4000, 0.25),
      at(HOUR),
    );
    expect(d.state).toMatchObject({
      effectiveMode: 'warn',
      since: at(HOUR).toISOString(),
      consecutiveBadChecks: 0,
      consecutiveQueryErrors: 0,
    });
    expect(d.transition).toEqual({
      at: at(HOUR).toISOString(),
      from: 'enforce',
      to: 'warn',
      reason: 'FallbackToWarn',
      figures: { gatedRequests: 4000, failureRatio: 0.25, consecutiveBadChecks: 3 },
    });
    expect(d.degraded).toMatchObject({ status: 'True', reason: 'FallbackToWarn' });
    expect(d.degraded.message).toContain('25%');
    expect(d.promotable.reason).toBe('SoakInProgress');
    expect(d.phase3Ready.reason).toBe('NotInEnforce');
  });

  it('falls back on the first bad check when the setting is 0 (at least one)', () => {
    const d = decide(
      withSettings({ consecutiveFailuresBeforeFallback: 0 }),
      stateIn('enforce'),
      tooHigh,
      at(HOUR),
    );
    expect(d.transition?.reason).toBe('FallbackToWarn');
  });

  it('keeps Degraded=True in warn after a fallback until the next transition', () => {
    const fell = decide(settings, stateIn('enforce', { consecutiveBadChecks: 2 }), tooHigh, at(HOUR));
    const later = decide(settings, fell.state, tooHigh, at(2 * HOUR));
    expect(later.degraded).toMatchObject({ status: 'True', reason: 'FallbackToWarn' });
    const repromoted = decide(settings, later.state, healthy, at(HOUR + 24 * HOUR));
    expect(repromoted.transition?.reason).toBe('Promoted');
    expect(repromoted.degraded.reason).toBe('Healthy');
  });
});

describe('SRE rollback and lowered mode (applied at once, skipping analysis)', () => {
  it.each(['warn', 'enforce'] as const)('rolls back from %s to disabled on the rollback request', (mode) => {
    const d = decide(withSettings({ rollbackRequested: true }), stateIn(mode), tooHigh, at(HOUR));
    expect(d.state.effectiveMode).toBe('disabled');
    expect(d.transition).toMatchObject({ from: mode, to: 'disabled', reason: 'RollbackRequested' });
    expect(d.transition?.figures).toMatchObject({ gatedRequests: 5000, failureRatio: 0.01 });
  });

  it('rolls back when spec.apiAuth.mode is set to disabled', () => {
    const d = decide(withSettings({ desiredMode: 'disabled' }), stateIn('enforce'), null, at(HOUR));
    expect(d.transition).toMatchObject({ from: 'enforce', to: 'disabled', reason: 'DesiredModeDisabled' });
  });

  it('rolls back even during a metrics outage, and records the error it saw', () => {
    const d = decide(
      withSettings({ rollbackRequested: true }),
      stateIn('warn'),
      failedQuery('timeout'),
      at(HOUR),
    );
    expect(d.transition).toMatchObject({ to: 'disabled', figures: { error: 'timeout' } });
  });

  it('prefers the rollback over a fallback due the same step', () => {
    const state = stateIn('enforce', { consecutiveBadChecks: 2 });
    const d = decide(withSettings({ rollbackRequested: true }), state, tooHigh, at(HOUR));
    expect(d.transition).toMatchObject({ to: 'disabled', reason: 'RollbackRequested' });
    expect(d.transition?.figures.consecutiveBadChecks).toBe(2);
  });

  it('holds disabled while the rollback request stands, whatever the desired mode', () => {
    const d = decide(withSettings({ rollbackRequested: true }), stateIn('disabled'), healthy, at(HOUR));
    expect(d.transition).toBeNull();
    expect(d.promotable).toMatchObject({ status: 'False', reason: 'RollbackRequested' });
  });

  it('goes from enforce back to warn at once when warn is desired, without analysis', () => {
    const d = decide(withSettings({ desiredMode: 'warn' }), stateIn('enforce'), healthy, at(HOUR));
    expect(d.transition).toMatchObject({ from: 'enforce', to: 'warn', reason: 'DesiredModeLowered' });
    expect(d.degraded.reason).toBe('NoFallback');
  });
});

describe('phase 3 readiness', () => {
  const week = 7 * 86_400;

  it('is in progress until enforce has soaked the minimum, then True (EnforceSoaked)', () => {
    expect(decide(settings, stateIn('enforce'), null, at(week - 1)).phase3Ready).toMatchObject({
      status: 'False',
      reason: 'EnforceSoakInProgress',
    });
    expect(decide(settings, stateIn('enforce'), null, at(week)).phase3Ready).toMatchObject({
      status: 'True',
      reason: 'EnforceSoaked',
    });
  });

  it('is not ready outside enforce', () => {
    expect(decide(settings, stateIn('warn'), null, at(week * 4)).phase3Ready.reason).toBe('NotInEnforce');
  });
});

describe('history', () => {
  it(`keeps the newest ${HISTORY_LIMIT} entries`, () => {
    const old: RolloutHistoryEntry[] = Array.from({ length: HISTORY_LIMIT }, (_, i) => ({
      at: at(i).toISOString(),
      from: 'disabled',
      to: 'warn',
      reason: `old-${i}`,
      figures: {},
    }));
    const d = decide(settings, stateIn('disabled', { history: old }), null, at(HOUR));
    expect(d.state.history).toHaveLength(HISTORY_LIMIT);
    expect(d.state.history[0]?.reason).toBe('old-1');
    expect(d.state.history.at(-1)).toEqual(d.transition);
  });

  it('is untouched by a step without a transition', () => {
    const d = decide(settings, stateIn('warn'), healthy, at(HOUR));
    expect(d.transition).toBeNull();
    expect(d.state.history).toEqual([]);
  });
});

describe('purity', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('does not mutate its inputs', () => {
    const state = stateIn('enforce', { consecutiveBadChecks: 2, history: [] });
    const settingsCopy = structuredClone(settings);
    const stateCopy = structuredClone(state);
    decide(settings, state, tooHigh, at(HOUR));
    expect(state).toEqual(stateCopy);
    expect(settings).toEqual(settingsCopy);
  });

  it('depends on `now` only, not on the system clock', () => {
    const run = () => decide(settings, stateIn('warn'), healthy, at(24 * HOUR));
    vi.useFakeTimers({ now: new Date('2001-01-01T00:00:00Z') });
    const early = run();
    vi.setSystemTime(new Date('2099-01-01T00:00:00Z'));
    expect(run()).toEqual(early);
  });
});

describe('reason codes', () => {
  it('are all documented in operator/README.md', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Rollout decisions'));
    const codes = new Set([
      ...TRANSITION_REASONS,
      ...PROMOTABLE_REASONS,
      ...DEGRADED_REASONS,
      ...PHASE3_REASONS,
    ]);
    const missing = [...codes].filter((code) => !section.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });
});
