/** Label and field selectors as the API server parses them from `labelSelector` / `fieldSelector`. */
import { KubeError } from './status.ts';
import type { KubeObject } from './types.ts';

type Matcher = (object: KubeObject) => boolean;

/** Equality (`a=b`, `a==b`, `a!=b`), existence (`a`, `!a`) and set-based (`a in (x,y)`, `a notin (x)`) terms. */
export function labelMatcher(selector: string | undefined): Matcher {
  if (!selector?.trim()) return () => true;
  const terms = selector.match(/[^,(]+(\([^)]*\))?/g) ?? [];
  const tests = terms.map((term) => labelTerm(term.trim()));
  return (object) => {
    const labels = object.metadata.labels ?? {};
    return tests.every((test) => test(labels));
  };
}

function labelTerm(term: string): (labels: Record<string, string>) => boolean {
  const set = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (set) {
    const [, key = '', op, list = ''] = set;
    const values = list.split(',').map((v) => v.trim());
    return op === 'in'
      ? (labels) => labels[key] !== undefined && values.includes(labels[key])
      : (labels) => labels[key] === undefined || !values.includes(labels[key]);
  }
  const equality = /^([\w./-]+)\s*(!=|==|=)\s*([\w./-]*)$/.exec(term);
  if (equality) {
    const [, key = '', op, value] = equality;
    return op === '!=' ? (labels) => labels[key] !== value : (labels) => labels[key] === value;
  }
  const exists = /^(!?)([\w./-]+)$/.exec(term);
  if (exists) {
    const [, not, key = ''] = exists;
    return not ? (labels) => !(key in labels) : (labels) => key in labels;
  }
  throw new KubeError(400, `unable to parse requirement: ${term}`);
}

/** `metadata.name` and `metadata.namespace` equality / inequality, the fields every type supports. */
export function fieldMatcher(selector: string | undefined): Matcher {
  if (!selector?.trim()) return () => true;
  const tests = selector.split(',').map((term): Matcher => {
    const match = /^(metadata\.name|metadata\.namespace)\s*(!=|==|=)\s*(\S.*)?$/.exec(term.trim());
    if (!match) throw new KubeError(400, `field label not supported: ${term}`);
    const [, field, op, value = ''] = match;
    const read = (o: KubeObject): string | undefined =>
      field === 'metadata.name' ? o.metadata.name : o.metadata.namespace;
    return op === '!=' ? (o) => read(o) !== value : (o) => read(o) === value;
  });
  return (object) => tests.every((test) => test(object));
}
