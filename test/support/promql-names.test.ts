import { describe, expect, it } from 'vitest';
import { baseMetricName, promqlMetricNames, servedMetrics } from './promql-names.ts';

describe('promqlMetricNames', () => {
  it.each([
    ['a bare selector', 'up', ['up']],
    ['matchers with operators and Grafana variables', 'x_total{a="b",c=~"d|e",ns="$namespace"}', ['x_total']],
    [
      'functions, aggregations with label lists, ranges and numbers',
      'histogram_quantile(0.99, sum by (namespace, le) (rate(h_bucket{a="1"}[$__rate_interval])))',
      ['h_bucket'],
    ],
    [
      'binary operators, offset and durations',
      'sum without (pod) (a) - max by (x) (b offset 30m) > 0.5 and on (x) c unless ignoring (y) d or e',
      ['a', 'b', 'c', 'd', 'e'],
    ],
    ['group_left with labels and bool', 'a == bool on (x) group_left (y) b', ['a', 'b']],
    ['strings that look like names', 'label_replace(a, "dst", "$1 sum", "src", "(.*)")', ['a']],
    ['escaped quotes in matchers', 'a{x="say \\"b{\\" now"} / c', ['a', 'c']],
    ['aggregation without a label list', 'count(a) + topk(3, b)', ['a', 'b']],
    ['each name once', 'a / a', ['a']],
    ['numbers with exponents and hex', '1e3 * a + 0x1f', ['a']],
    ['scalars only', 'vector(1) > 0', []],
  ])('%s', (_name, expr, names) => {
    expect(promqlMetricNames(expr)).toEqual(names);
  });

  it('refuses a __name__ matcher, which it cannot read', () => {
    expect(() => promqlMetricNames('{__name__=~"a.*"}')).toThrow(/__name__/);
  });
});

describe('baseMetricName', () => {
  const served = new Set(['h', 'c_count', 'g']);
  it('maps histogram series to the histogram and keeps names that are served as they are', () => {
    expect(baseMetricName('h_bucket', served)).toBe('h');
    expect(baseMetricName('h_sum', served)).toBe('h');
    expect(baseMetricName('c_count', served)).toBe('c_count');
    expect(baseMetricName('g', served)).toBe('g');
  });
});

describe('servedMetrics', () => {
  it('reads the TYPE lines of an exposition', () => {
    const text =
      '# HELP a_total A.\n# TYPE a_total counter\na_total 1\n# TYPE h histogram\nh_bucket{le="1"} 0\n';
    expect([...servedMetrics(text)]).toEqual([
      ['a_total', 'counter'],
      ['h', 'histogram'],
    ]);
  });
});
