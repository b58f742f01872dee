import { describe, expect, it } from 'vitest';
import { mergeConditions } from './status-conditions.ts';

const t0 = new Date(Date.UTC(2026, 0, 1));
const t1 = new Date(Date.UTC(2026, 0, 2));

describe('mergeConditions', () => {
  it('moves lastTransitionTime only when the status changes, keeps undrafted conditions, orders by type', () => {
    const first = mergeConditions(
      undefined,
      {
        Progressing: { status: 'True', reason: 'A', message: 'a' },
        Ready: { status: 'True', reason: 'Applied', message: 'ok' },
      },
      1,
      t0,
    );
    expect(first.map((c) => c.type)).toEqual(['Ready', 'Progressing']);
    const second = mergeConditions(
      first,
      { Ready: { status: 'True', reason: 'Other', message: 'x' } },
      2,
      t1,
    );
    expect(second[0]).toEqual({
      type: 'Ready',
      status: 'True',
      reason: 'Other',
      message: 'x',
      observedGeneration: 2,
      lastTransitionTime: t0.toISOString(),
    });
    expect(second[1]).toBe(first[1]);
    const third = mergeConditions(
      second,
      { Ready: { status: 'False', reason: 'InvalidSpec', message: 'y' } },
      3,
      t1,
    );
    expect(third[0]?.lastTransitionTime).toBe(t1.toISOString());
  });
});
