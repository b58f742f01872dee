import { describe, expect, it } from 'vitest';
import { configMapsToPrune } from './config-map-history.ts';

const at = (minute: number, name: string) => ({
  name,
  creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
  resourceVersion: String(minute),
});

describe('configMapsToPrune', () => {
  it('keeps the 5 newest, always counting the applied and previous ones among them', () => {
    const stored = [0, 1, 2, 3, 4, 5, 6, 7].map((minute) => at(minute, `cm-${minute}`));
    expect(configMapsToPrune(stored, ['cm-7', 'cm-6']).sort()).toEqual(['cm-0', 'cm-1', 'cm-2']);
    // A rollback to an old configuration keeps it, and the newest others fill the rest.
    expect(configMapsToPrune(stored, ['cm-0', 'cm-7']).sort()).toEqual(['cm-1', 'cm-2', 'cm-3']);
  });

  it('breaks one-second timestamp ties by resourceVersion, and prunes nothing at 5 or fewer', () => {
    const same = [1, 2, 3, 4, 5, 6].map((rv) => ({ ...at(0, `cm-${rv}`), resourceVersion: String(rv) }));
    expect(configMapsToPrune(same, [])).toEqual(['cm-1']);
    expect(configMapsToPrune(same.slice(0, 5), [])).toEqual([]);
  });
});
