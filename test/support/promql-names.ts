/**
 * The metric names a PromQL expression reads, for the tests that check the shipped dashboard and alerts against
 * the metrics the gateway and the operator serve (charts/gatehouse/observability.test.ts). A small tokenizer, not
 * a parser: `promtool check rules` proves the syntax, this only finds the names. It skips strings, label matchers
 * (`{...}`), ranges (`[...]`), the label lists of `by`/`without`/`on`/`ignoring`/`group_left`/`group_right`,
 * numbers and durations, and words followed by `(` (functions) or that are operators. Grafana's variables may stand
 * in matchers and ranges (`$namespace`, `$__rate_interval`).
 */

/** Words that are PromQL, not metric names: set operators, modifiers, aggregations and the number literals. */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
  'atan2',
  'inf',
  'nan',
]);

/** Keywords whose parenthesised argument is a list of label names. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

const isNameStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c === ':';
const isNamePart = (c: string) => isNameStart(c) || (c >= '0' && c <= '9');
const isDigit = (c: string) => (c >= '0' && c <= '9') || c === '.';

/** The index just past the string literal that opens at `start`. */
function skipString(expr: string, start: number): number {
  const quote = expr[start];
  let i = start + 1;
  while (i < expr.length && expr[i] !== quote) i += expr[i] === '\\' && quote !== '`' ? 2 : 1;
  return i + 1;
}

/** The index just past the bracket that closes the one opening at `start`, skipping strings inside. */
function skipBracket(expr: string, start: number, close: string): number {
  let i = start + 1;
  while (i < expr.length && expr[i] !== close) {
    const c = expr[i] ?? '';
    i = c === '"' || c === "'" || c === '`' ? skipString(expr, i) : i + 1;
  }
  return i + 1;
}

function nextNonSpace(expr: string, from: number): number {
  let i = from;
  while (i < expr.length && ' \t\r\n'.includes(expr[i] ?? '')) i++;
  return i;
}

/** Every metric name `expr` selects, in order of first appearance. Throws on `__name__` matchers. */
export function promqlMetricNames(expr: string): string[] {
  if (expr.includes('__name__')) throw new Error(`a __name__ matcher hides the metric name: ${expr}`);
  const names: string[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i] ?? '';
    if (c === '"' || c === "'" || c === '`') i = skipString(expr, i);
    else if (c === '{') i = skipBracket(expr, i, '}');
    else if (c === '[') i = skipBracket(expr, i, ']');
    else if (isDigit(c)) {
      while (i < expr.length && (isNamePart(expr[i] ?? '') || expr[i] === '.')) i++;
    } else if (isNameStart(c)) {
      const start = i;
      while (i < expr.length && isNamePart(expr[i] ?? '')) i++;
      const word = expr.slice(start, i);
      const after = nextNonSpace(expr, i);
      if (LABEL_LISTS.has(word) && expr[after] === '(') i = skipBracket(expr, after, ')');
      else if (!KEYWORDS.has(word) && expr[after] !== '(' && !names.includes(word)) names.push(word);
    } else i++;
  }
  return names;
}

/** What a histogram's or summary's series name is a part of: `x_bucket`, `x_sum`, `x_count` → `x`. */
export function baseMetricName(name: string, served: ReadonlySet<string>): string {
  if (served.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix)) return name.slice(0, -suffix.length);
  }
  return name;
}

/** The metric names an exposition text declares (`# TYPE name type`), with their types. */
export function servedMetrics(exposition: string): Map<string, string> {
  const served = new Map<string, string>();
  for (const line of exposition.split('\n')) {
    if (!line.startsWith('# TYPE ')) continue;
    const [name, type] = line.slice('# TYPE '.length).split(' ');
    if (name && type) served.set(name, type);
  }
  return served;
}
