import { describe, expect, it } from 'vitest';
import { authConfigSchema } from './crd.ts';
import type { JsonSchema } from './json-schema.ts';
import { CRD_COST_LIMIT, RULE_COST_LIMIT, ruleCosts } from '../../../test/support/operator/cel-cost.ts';

/**
 * The API server estimates each CEL rule's cost when the CRD is created and refuses rules (or a CRD) over its
 * budget. These tests hold the CRD's rules to an upper bound of that estimate (see testing/cel-cost.ts).
 */
describe('the CRD CEL rules, within the API server cost budget', () => {
  const costs = ruleCosts(authConfigSchema);

  it('every rule is estimated, and each one is under the per-rule limit', () => {
    expect(costs.length).toBeGreaterThan(20);
    const over = costs.filter(({ cost }) => cost > RULE_COST_LIMIT);
    expect(over).toEqual([]);
  });

  it('the whole CRD, each rule counted as often as it can run in one object, is under the per-CRD limit', () => {
    const total = costs.reduce((sum, { cost, cardinality }) => sum + cost * cardinality, 0);
    expect(total).toBeLessThan(CRD_COST_LIMIT);
  });

  it('the estimate is real: a rule walking an unbounded string or list is over the limit', () => {
    const withRule = (schema: JsonSchema, text: string): JsonSchema => ({
      type: 'object',
      properties: { value: schema },
      'x-kubernetes-validations': [{ rule: text, message: 'x' }],
    });
    const [unboundedString] = ruleCosts(withRule({ type: 'string' }, "self.value.contains('x')"));
    const [unboundedList] = ruleCosts(
      withRule({ type: 'array', items: { type: 'string', maxLength: 8 } }, "self.value.all(v, v != 'x')"),
    );
    const [bounded] = ruleCosts(
      withRule(
        { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 8 } },
        "self.value.all(v, v != 'x')",
      ),
    );
    expect(unboundedString?.cost).toBeGreaterThan(RULE_COST_LIMIT);
    expect(unboundedList?.cost).toBeGreaterThan(RULE_COST_LIMIT);
    expect(bounded?.cost).toBeLessThan(1000);
  });

  it('a rule under a list counts once per element toward the CRD total', () => {
    const items: JsonSchema = {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 8 } },
      'x-kubernetes-validations': [{ rule: "self.name != 'x'", message: 'x' }],
    };
    const [bounded] = ruleCosts({ type: 'array', maxItems: 7, items });
    const [unbounded] = ruleCosts({ type: 'array', items });
    expect(bounded?.cardinality).toBe(7);
    expect((unbounded?.cardinality ?? 0) * (unbounded?.cost ?? 0)).toBeGreaterThan(CRD_COST_LIMIT);
  });
});
