import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPrometheusAnalysis, ratio } from './analysis-source.ts';
import { fillQuery, promDuration } from './promql.ts';
import type { Analysis } from '../rollout/types.ts';

/** The error of a failed analysis (the test fails if it succeeded). */
function failure(result: Analysis): string {
  if (result.ok) throw new Error(`expected a failed analysis, got ${JSON.stringify(result)}`);
  return result.error;
}

// A loopback stand-in for the Prometheus HTTP API, for the answers a real server is hard to provoke into
// (HTTP 503, a stalled body, several series, NaN). The real server is in operator/test/prometheus.test.ts.

type Handler = (url: URL, res: ServerResponse) => void;

let server: Server;
let base: string;
let handler: Handler;
const seen: URL[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    seen.push(url);
    handler(url, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
});

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const vector = (...values: string[]) => ({
  status: 'success',
  data: {
    resultType: 'vector',
    result: values.map((value, i) => ({ metric: { i: String(i) }, value: [1700000000, value] })),
  },
});

/**
 * Answers by the query's first word: gated → the first body, anything else → the second; a body with
 * `status: error` goes with `errorStatus`, the others with 200.
 */
const answer =
  (gated: unknown, failures: unknown, errorStatus = 200): Handler =>
  (url, res) => {
    const body = url.searchParams.get('query')?.startsWith('gated') ? gated : failures;
    const failed = typeof body === 'object' && body !== null && 'status' in body && body.status === 'error';
    json(res, failed ? errorStatus : 200, body);
  };

const queries = { gatedRequests: 'gated[{{window}}]', wouldDeny: 'would_deny', failed: 'failed' };
const AT = new Date('2026-03-02T10:00:00.250Z');
const request = (
  overrides: Partial<Parameters<ReturnType<typeof createPrometheusAnalysis>['analyse']>[0]> = {},
) => ({
  prometheusUrl: base,
  queries,
  mode: 'warn' as const,
  windowSeconds: 3600,
  namespace: 'team-a',
  at: AT,
  ...overrides,
});

describe('createPrometheusAnalysis against a loopback stand-in', () => {
  const source = () => createPrometheusAnalysis({ timeoutMs: 500 });

  it('sends instant queries with the placeholders filled and the time in unix seconds', async () => {
    handler = answer(vector('200'), vector('2'));
    const result = await source().analyse(
      request({ queries: { ...queries, wouldDeny: 'wd{namespace="{{namespace}}"}[{{window}}]' } }),
    );
    expect(result).toEqual({ ok: true, gatedRequests: 200, failureRatio: 0.01 });
    expect(seen.map((url) => url.pathname)).toEqual(['/api/v1/query', '/api/v1/query']);
    expect(seen.map((url) => url.searchParams.get('query')).sort()).toEqual([
      'gated[3600s]',
      'wd{namespace="team-a"}[3600s]',
    ]);
    expect(seen.every((url) => url.searchParams.get('time') === '1772445600.250')).toBe(true);
  });

  it('uses the failed query in enforce and the wouldDeny query in warn', async () => {
    handler = answer(vector('100'), vector('5'));
    await source().analyse(request({ mode: 'enforce' }));
    expect(seen.map((url) => url.searchParams.get('query'))).toContain('failed');
    expect(seen.map((url) => url.searchParams.get('query'))).not.toContain('would_deny');
  });

  it('keeps a path prefix of the Prometheus URL', async () => {
    handler = answer(vector('1'), vector('0'));
    await source().analyse(request({ prometheusUrl: `${base}/prometheus/` }));
    expect(seen[0]?.pathname).toBe('/prometheus/api/v1/query');
  });

  it('reads an empty vector as 0 and a scalar as its value', async () => {
    handler = answer(
      { status: 'success', data: { resultType: 'scalar', result: [1700000000, '40'] } },
      vector(),
    );
    expect(await source().analyse(request())).toEqual({ ok: true, gatedRequests: 40, failureRatio: 0 });
  });

  it('an empty window is 0 requests with ratio 0 (decide calls that too few samples)', async () => {
    handler = answer(vector(), vector());
    expect(await source().analyse(request())).toEqual({ ok: true, gatedRequests: 0, failureRatio: 0 });
  });

  it('rounds the extrapolated request count but computes the ratio from the raw figures', async () => {
    handler = answer(vector('99.6'), vector('9.96'));
    const result = await source().analyse(request());
    expect(result).toMatchObject({ ok: true, gatedRequests: 100 });
    expect(result.ok && result.failureRatio).toBeCloseTo(0.1, 12);
  });

  it('clamps a ratio above 1 (would_deny summed over both layers) to 1', async () => {
    handler = answer(vector('10'), vector('15'));
    expect(await source().analyse(request())).toEqual({ ok: true, gatedRequests: 10, failureRatio: 1 });
  });

  it.each([
    [
      'HTTP 503 with a JSON error',
      answer(vector('1'), { status: 'error', errorType: 'unavailable', error: 'shutting down' }, 503),
      /wouldDeny query: .*HTTP 503.*unavailable: shutting down/,
    ],
    [
      'status error with HTTP 400',
      answer({ status: 'error', errorType: 'bad_data', error: 'parse error at char 5' }, vector('1'), 400),
      /gatedRequests query: .*bad_data: parse error/,
    ],
    [
      'HTTP 500 with a text body',
      ((_url, res) => {
        res.writeHead(500);
        res.end('oops');
      }) satisfies Handler,
      /HTTP 500 with a body that is not JSON: "oops"/,
    ],
    ['NaN', answer(vector('NaN'), vector('1')), /gatedRequests query: .*answered NaN, not a finite number/],
    ['+Inf', answer(vector('10'), vector('+Inf')), /wouldDeny query: .*answered \+Inf/],
    [
      'more than one series',
      answer(vector('1', '2'), vector('1')),
      /answered 2 series; the query must aggregate to one number/,
    ],
    [
      'a range result',
      answer({ status: 'success', data: { resultType: 'matrix', result: [] } }, vector('1')),
      /answered a matrix/,
    ],
    [
      'a malformed sample',
      answer(vector('1'), { status: 'success', data: { resultType: 'vector', result: [{ value: [1, 2] }] } }),
      /malformed sample/,
    ],
    ['negative counts', answer(vector('-3'), vector('1')), /negative counts/],
    ['success without data', answer({ status: 'success' }, vector('1')), /without data/],
  ])('%s → ok:false with a clear message', async (_name, respond, message) => {
    handler = respond;
    const result = await source().analyse(request());
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(message);
  });

  it('a Prometheus that does not answer in time → ok:false naming the timeout', async () => {
    handler = () => {
      // Never answers; the client's timeout ends the exchange.
    };
    const started = Date.now();
    const result = await createPrometheusAnalysis({ timeoutMs: 150 }).analyse(request());
    expect(Date.now() - started).toBeLessThan(2000);
    expect(failure(result)).toMatch(/unreachable: no answer within 150 ms/);
  });

  it('a body that stalls after the headers is caught by the same timeout', async () => {
    handler = (_url, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":');
    };
    const result = await createPrometheusAnalysis({ timeoutMs: 150 }).analyse(request());
    expect(failure(result)).toMatch(/no answer within 150 ms/);
  });

  it('an unreachable Prometheus, an invalid URL and a throwing fetch → ok:false, never a throw', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await source().analyse(request({ prometheusUrl: `http://127.0.0.1:${port}` }));
    expect(failure(unreachable)).toMatch(/unreachable: fetch failed: .*ECONNREFUSED/);

    const invalid = await source().analyse(request({ prometheusUrl: 'not a url' }));
    expect(failure(invalid)).toMatch(/invalid Prometheus URL/);

    const throwing = createPrometheusAnalysis({
      timeoutMs: 100,
      fetch: () => Promise.reject(new TypeError('boom')),
    });
    expect(failure(await throwing.analyse(request()))).toMatch(/unreachable: boom/);
  });

  it('sends credentials in the URL as basic auth and keeps them out of messages', async () => {
    const headers: (string | undefined)[] = [];
    handler = (_url, res) => json(res, 503, { status: 'error', errorType: 'unavailable', error: 'down' });
    server.once('request', (req: IncomingMessage) => headers.push(req.headers.authorization));
    const result = await source().analyse(
      request({ prometheusUrl: base.replace('http://', 'http://ops:s%40cret@') }),
    );
    expect(headers[0]).toBe(`Basic ${Buffer.from('ops:s@cret').toString('base64')}`);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).not.toMatch(/s%40cret|s@cret|ops/);
  });
});

describe('fillQuery and promDuration', () => {
  it('writes the window in whole seconds, at least one', () => {
    expect(promDuration(3600)).toBe('3600s');
    expect(promDuration(29.6)).toBe('30s');
    expect(promDuration(0)).toBe('1s');
    expect(promDuration(Number.NaN)).toBe('1s');
  });

  it('fills every occurrence and escapes a quote in the namespace', () => {
    expect(
      fillQuery('a{ns="{{namespace}}"}[{{window}}] / b[{{window}}]', { windowSeconds: 60, namespace: 'x' }),
    ).toBe('a{ns="x"}[60s] / b[60s]');
    expect(fillQuery('{ns="{{namespace}}"}', { windowSeconds: 60, namespace: 'a"} or vector(1) #' })).toBe(
      '{ns="a\\"} or vector(1) #"}',
    );
  });

  it('leaves an already filled query as it is', () => {
    expect(fillQuery('sum(increase(m{namespace="n"}[1h]))', { windowSeconds: 60, namespace: 'x' })).toBe(
      'sum(increase(m{namespace="n"}[1h]))',
    );
  });
});

describe('ratio', () => {
  it('is failures / total, clamped to [0, 1], 0 over an empty window', () => {
    expect(ratio(1, 4)).toBe(0.25);
    expect(ratio(19, 10)).toBe(1);
    expect(ratio(-1, 10)).toBe(0);
    expect(ratio(3, 0)).toBe(0);
  });
});
