import { describe, expect, it } from 'vitest';
import { GATE_METRIC_NAMES } from '../../../gateway/src/operator-api.ts';
import type { RolloutState } from '../rollout/types.ts';
import {
  analysisQueries,
  parseDuration,
  rolloutPhase,
  rolloutSettings,
  rolloutStateFromStatus,
} from './rollout-settings.ts';
import { minimalSpec, specWith } from '../../../test/support/operator/fixtures.ts';
import type { RolloutStatus } from './types.generated.ts';
import { validateSpec } from './validate-spec.ts';

function spec(input = minimalSpec) {
  const verdict = validateSpec(input);
  if (!verdict.ok) throw new Error(JSON.stringify(verdict.problems));
  return verdict.spec;
}

describe('parseDuration', () => {
  it.each([
    ['24h', 86_400],
    ['1h30m', 5_400],
    ['90s', 90],
    ['168h', 604_800],
    ['2m5s', 125],
  ])('%s is %i seconds', (text, seconds) => expect(parseDuration(text)).toBe(seconds));

  it.each(['', '1d', '5', '1.5h', 'h', '1s1m'])('refuses "%s"', (text) => {
    expect(() => parseDuration(text)).toThrow(/not a duration/);
  });
});

describe('rolloutSettings', () => {
  it('gives the rollout engine the phase plan as defaults: warn 24-72 h, enforce soaked 7 d', () => {
    expect(rolloutSettings(spec(), { rollbackRequested: false })).toEqual({
      desiredMode: 'disabled',
      automaticPromotion: true,
      minWarnSoakSeconds: 24 * 3600,
      maxWarnSoakSeconds: 72 * 3600,
      minEnforceSoakSeconds: 7 * 24 * 3600,
      maxWouldDenyRatio: 0.01,
      minGatedRequests: 1000,
      analysisIntervalSeconds: 300,
      consecutiveFailuresBeforeFallback: 3,
      rollbackRequested: false,
    });
  });

  it('passes the SRE requests through', () => {
    const settings = rolloutSettings(spec(), {
      rollbackRequested: true,
      promotionRequestedAt: '2026-01-01T00:00:00Z',
    });
    expect(settings).toMatchObject({ rollbackRequested: true, promotionRequestedAt: '2026-01-01T00:00:00Z' });
  });
});

describe('analysisQueries', () => {
  it('fills the window and the namespace into the default queries of the per-request verdict counter', () => {
    const queries = analysisQueries(
      spec(specWith({ apiAuth: { rollout: { analysisWindow: '30m' } } })),
      'shop',
    );
    expect(queries.gatedRequests).toBe(
      // {{mode}} stays for the analysis to fill with the mode it analyses.
      `sum(increase(${GATE_METRIC_NAMES.requests}{namespace="shop",mode="{{mode}}"}[30m]))`,
    );
    expect(queries.wouldDeny).toContain('outcome="would_deny"}[30m]');
    expect(queries.failed).toContain('outcome="fail"}[30m]');
  });
});

describe('rolloutPhase', () => {
  it('numbers the phases of the phase plan', () => {
    expect(rolloutPhase('disabled', false)).toBe(0);
    expect(rolloutPhase('warn', false)).toBe(1);
    expect(rolloutPhase('enforce', false)).toBe(2);
    expect(rolloutPhase('enforce', true)).toBe(3);
  });
});

describe('rolloutStateFromStatus', () => {
  const base: RolloutStatus = {
    effectiveMode: 'warn',
    since: '2026-01-01T00:00:00Z',
    phase: 1,
    consecutiveBadChecks: 0,
    consecutiveQueryErrors: 0,
    history: [],
  };

  it('narrows a stored analysis back to the engine union, and drops an inconsistent one', () => {
    const at = '2026-01-01T01:00:00Z';
    expect(
      rolloutStateFromStatus({
        ...base,
        lastAnalysis: { ok: true, at, mode: 'warn', gatedRequests: 5, failureRatio: 0 },
      }).lastAnalysis,
    ).toEqual({ ok: true, at, mode: 'warn', gatedRequests: 5, failureRatio: 0 });
    expect(
      rolloutStateFromStatus({ ...base, lastAnalysis: { ok: false, at, mode: 'warn', error: 'timeout' } })
        .lastAnalysis,
    ).toEqual({ ok: false, at, mode: 'warn', error: 'timeout' });
    const inconsistent = rolloutStateFromStatus({ ...base, lastAnalysis: { ok: true, at, mode: 'warn' } });
    expect(inconsistent).not.toHaveProperty('lastAnalysis');
    expect(inconsistent).not.toHaveProperty('phase');
  });

  it('round-trips an engine state through the status as JSON', () => {
    const state: RolloutState = {
      effectiveMode: 'enforce',
      since: '2026-01-02T00:00:00Z',
      consecutiveBadChecks: 1,
      consecutiveQueryErrors: 0,
      history: [
        {
          at: '2026-01-02T00:00:00Z',
          from: 'warn',
          to: 'enforce',
          reason: 'Promoted',
          figures: { gatedRequests: 12_000, failureRatio: 0.001 },
        },
      ],
      lastAnalysis: {
        ok: true,
        at: '2026-01-02T00:05:00Z',
        mode: 'enforce',
        gatedRequests: 900,
        failureRatio: 0.2,
      },
    };
    const stored: RolloutStatus = { ...state, phase: rolloutPhase(state.effectiveMode, false) };
    expect(rolloutStateFromStatus(JSON.parse(JSON.stringify(stored)) as RolloutStatus)).toEqual(state);
  });
});
