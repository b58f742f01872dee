import { describe, expect, it } from 'vitest';
import { mergeConditions, readyAfterApply } from './status-conditions.ts';

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

describe('readyAfterApply', () => {
  const target = {
    deployment: 'gatehouse',
    container: 'gateway',
    configMap: 'gw-env-bbbbbbbbbb',
    mode: 'warn',
    missingSecrets: [],
    overriddenEnv: [],
  };

  it('is Applied when nothing stands in the way', () => {
    expect(readyAfterApply(target)).toEqual({
      status: 'True',
      reason: 'Applied',
      message: 'Deployment gatehouse runs with ConfigMap gw-env-bbbbbbbbbb (API_AUTH_MODE=warn)',
    });
  });

  it('is EnvOverridden, naming the variables, when env entries the operator does not own override the ConfigMap', () => {
    const ready = readyAfterApply({ ...target, overriddenEnv: ['API_AUTH_MODE', 'LOG_LEVEL'] });
    expect(ready).toMatchObject({ status: 'False', reason: 'EnvOverridden' });
    expect(ready.message).toContain('container gateway in Deployment gatehouse');
    expect(ready.message).toContain('gw-env-bbbbbbbbbb: API_AUTH_MODE, LOG_LEVEL');
  });

  it('reports a missing Secret first: the new pods cannot start at all', () => {
    const ready = readyAfterApply({ ...target, missingSecrets: ['s'], overriddenEnv: ['API_AUTH_MODE'] });
    expect(ready).toMatchObject({ status: 'False', reason: 'SecretNotFound' });
  });
});
