import { describe, expect, it } from 'vitest';
import { firingRules, loadEscalationRules, type EscalationFacts } from './escalation-rules.ts';

const rules = loadEscalationRules();
const facts = (leadBefore: string | null, leadAfter: string | null): EscalationFacts => ({
  intent: 'sharePersonalInfo',
  handlerEscalation: null,
  leadBefore,
  leadAfter,
  defaultAnswersInARow: 0,
});
const fired = (before: string | null, after: string | null) =>
  firingRules(rules, facts(before, after)).map((rule) => rule.id);

describe('leadBecame: the lead enters one of the statuses', () => {
  it.each([
    [null, 'captured'],
    [null, 'qualified'],
    ['incomplete', 'captured'],
    ['incomplete', 'qualified'],
  ])('fires lead_captured from %s to %s', (before, after) => {
    expect(fired(before, after)).toEqual(['lead_captured']);
  });

  it.each([
    ['captured', 'qualified'],
    ['captured', 'captured'],
    ['qualified', 'qualified'],
    [null, 'incomplete'],
    ['incomplete', 'incomplete'],
    [null, null],
  ])('does not fire from %s to %s', (before, after) => {
    expect(fired(before, after)).toEqual([]);
  });
});
