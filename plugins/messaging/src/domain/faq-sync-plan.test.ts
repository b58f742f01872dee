import { describe, expect, it } from 'vitest';
import type { UpstreamItem } from './faq-schemas.ts';
import { countActions, planSync, upstreamHash, type KnownEntry } from './faq-sync-plan.ts';

const item = (id: string, answer: string): UpstreamItem => ({
  id,
  questions: [`q ${id}`],
  answer,
  language: 'id',
  updatedAt: '2026-01-01T00:00:00Z',
});

const known = (id: string, answer: string, over: Partial<KnownEntry> = {}): KnownEntry => ({
  id: `entry-${id}`,
  externalId: id,
  upstreamHash: upstreamHash(item(id, answer)),
  locallyEdited: false,
  archived: false,
  openConflictHash: null,
  ...over,
});

describe('planSync', () => {
  it('creates, keeps, updates, archives, and turns a change of a local edit into a conflict', () => {
    const actions = planSync(
      [item('new', 'n'), item('same', 's'), item('changed', 'c2'), item('edited', 'e2')],
      [
        known('same', 's'),
        known('changed', 'c1'),
        known('edited', 'e1', { locallyEdited: true }),
        known('gone', 'g'),
      ],
    );
    expect(actions.map((a) => a.kind)).toEqual(['create', 'unchanged', 'update', 'conflict', 'archive']);
    expect(countActions(actions)).toEqual({
      created: 1,
      updated: 1,
      archived: 1,
      conflicts: 1,
      unchanged: 1,
    });
  });

  it('leaves a local edit alone while the upstream is what it last saw or what its open conflict holds', () => {
    const open = upstreamHash(item('e', 'e2'));
    expect(planSync([item('e', 'e1')], [known('e', 'e1', { locallyEdited: true })])[0]?.kind).toBe(
      'unchanged',
    );
    expect(
      planSync([item('e', 'e2')], [known('e', 'e1', { locallyEdited: true, openConflictHash: open })])[0]
        ?.kind,
    ).toBe('unchanged');
  });

  it('brings back an entry the sync archived, and archives nothing twice', () => {
    const actions = planSync(
      [item('back', 'b')],
      [known('back', 'b', { archived: true }), known('old', 'o', { archived: true })],
    );
    expect(actions.map((a) => a.kind)).toEqual(['update']);
  });

  it('hashes content, not the update time', () => {
    expect(upstreamHash(item('a', 'x'))).toBe(
      upstreamHash(Object.assign(item('a', 'x'), { updatedAt: '2027-01-01T00:00:00Z' })),
    );
    expect(upstreamHash(item('a', 'x'))).not.toBe(upstreamHash(item('a', 'y')));
  });
});
