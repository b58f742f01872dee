import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../api/names.ts';
import { planAction } from './actions.ts';
import type { RolloutView } from './status-view.ts';
import { formatTable } from './table.ts';

const now = new Date('2026-03-01T12:00:00.000Z');

const inWarn: NonNullable<RolloutView['rollout']> = {
  effectiveMode: 'warn',
  since: '2026-03-01T00:00:00.000Z',
  phase: 1,
  consecutiveBadChecks: 0,
  consecutiveQueryErrors: 0,
  history: [],
};

const view = (changes: Partial<RolloutView> = {}): RolloutView => ({
  namespace: 'gatehouse',
  name: 'gateway',
  desiredMode: 'enforce',
  automaticPromotion: true,
  rollbackRequested: false,
  conditions: [],
  rollout: inWarn,
  ...changes,
});

describe('planAction', () => {
  it('promote writes the approval time in warn and notes a desired mode that caps it', () => {
    const plan = planAction('promote', view({ desiredMode: 'warn' }), { clear: false, now });
    expect(plan.patch).toEqual({ metadata: { annotations: { [ANNOTATIONS.promote]: now.toISOString() } } });
    expect(plan.exitCode).toBe(0);
    expect(plan.message).toContain('spec.apiAuth.mode is warn: nothing promotes until it is enforce');
  });

  it('promote is refused outside warn and before any status (an approval there would never count)', () => {
    const { rollout: _warn, ...unreported } = view();
    const disabled = view({ rollout: { ...inWarn, effectiveMode: 'disabled', phase: 0 } });
    for (const base of [unreported, disabled])
      expect(planAction('promote', base, { clear: false, now })).toMatchObject({ patch: null, exitCode: 1 });
  });

  it('pause and resume change only what differs', () => {
    expect(planAction('pause', view(), { clear: false, now }).patch).toEqual({
      spec: { apiAuth: { rollout: { automaticPromotion: false } } },
    });
    expect(planAction('resume', view(), { clear: false, now }).patch).toBeNull();
  });

  it('rollback --clear removes the annotation (null in a merge patch) and says where the rollout goes', () => {
    const plan = planAction('rollback', view({ rollbackRequested: true, desiredMode: 'disabled' }), {
      clear: true,
      now,
    });
    expect(plan.patch).toEqual({ metadata: { annotations: { [ANNOTATIONS.rollback]: null } } });
    expect(plan.message).toContain('it stays disabled');
    expect(planAction('rollback', view(), { clear: true, now }).patch).toBeNull();
    expect(planAction('rollback', view({ rollbackRequested: true }), { clear: false, now }).patch).toBeNull();
  });
});

describe('formatTable', () => {
  it('aligns columns, leaves the last unpadded, and flattens cells to one line', () => {
    expect(formatTable(['a', 'bb', 'c'], [['long value', '', 'x\n  y']])).toBe(
      'A           BB  C\nlong value  -   x y\n',
    );
  });
});
