/** One number from a Prometheus instant query, or why there is none. */
export type InstantResult = { ok: true; value: number } | { ok: false; error: string };

export interface InstantQueryOptions {
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
}

/**
 * Runs one instant query (`GET {base}/api/v1/query?query=...&time=<unix seconds>`) and reads it as a single
 * number: a scalar, a vector of one series, or an empty vector (no matching series: nothing happened in the
 * window, so 0). Anything else is an error with a message saying what came back. Never throws.
 *
 * The timeout covers the whole exchange, body included, so a Prometheus that answers the headers and then
 * stalls cannot hold a reconcile.
 */
export async function instantQuery(
  baseUrl: string,
  query: string,
  at: Date,
  options: InstantQueryOptions,
): Promise<InstantResult> {
  let url: URL;
  try {
    url = queryUrl(baseUrl, query, at);
  } catch {
    return { ok: false, error: 'invalid Prometheus URL (not an absolute http(s) URL)' };
  }
  const where = describe(url);
  const headers = credentialsHeader(url);
  let body: unknown;
  let status: number;
  try {
    const response = await options.fetch(url, {
      headers,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    status = response.status;
    const text = await response.text();
    try {
      body = JSON.parse(text);
    } catch {
      // Prometheus answers errors (400, 422, 503) with a JSON body too; anything else is not Prometheus.
      return {
        ok: false,
        error: `${where} answered HTTP ${status} with a body that is not JSON: ${snippet(text)}`,
      };
    }
  } catch (err) {
    return { ok: false, error: `${where} unreachable: ${reason(err, options.timeoutMs)}` };
  }
  return readBody(body, status, where);
}

function queryUrl(baseUrl: string, query: string, at: Date): URL {
  // A base with a path prefix (`http://host/prometheus`) keeps it: resolve against the base with a trailing slash.
  const base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const url = new URL('api/v1/query', base);
  url.searchParams.set('query', query);
  url.searchParams.set('time', (at.getTime() / 1000).toFixed(3));
  return url;
}

/**
 * `fetch` refuses URLs with credentials, so `http://user:pass@host` (a Prometheus behind basic auth) becomes an
 * Authorization header and the URL loses them; they never reach an error message either.
 */
function credentialsHeader(url: URL): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (url.username !== '' || url.password !== '') {
    const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return headers;
}

/** The URL as it may appear in a status message: no credentials, no query string. */
function describe(url: URL): string {
  return `Prometheus at ${url.origin}${url.pathname}`;
}

function reason(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
    return `no answer within ${timeoutMs} ms`;
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${err.message}${cause}`;
  }
  return String(err);
}

function readBody(body: unknown, httpStatus: number, where: string): InstantResult {
  if (!isObject(body))
    return { ok: false, error: `${where} answered HTTP ${httpStatus} with unexpected JSON` };
  if (body.status === 'error') {
    const type = typeof body.errorType === 'string' ? `${body.errorType}: ` : '';
    const message = typeof body.error === 'string' ? body.error : 'no message';
    return { ok: false, error: `${where} query failed (HTTP ${httpStatus}): ${type}${message}` };
  }
  if (httpStatus < 200 || httpStatus >= 300 || body.status !== 'success')
    return { ok: false, error: `${where} answered HTTP ${httpStatus} with status ${String(body.status)}` };
  const data = body.data;
  if (!isObject(data)) return { ok: false, error: `${where} answered without data` };
  switch (data.resultType) {
    case 'scalar':
      return sampleValue(data.result, where);
    case 'vector': {
      const series = data.result;
      if (!Array.isArray(series)) return { ok: false, error: `${where} answered a vector without a result` };
      if (series.length === 0) return { ok: true, value: 0 };
      if (series.length > 1)
        return {
          ok: false,
          error: `${where} answered ${series.length} series; the query must aggregate to one number (wrap it in sum())`,
        };
      const only: unknown = series[0];
      return sampleValue(isObject(only) ? only.value : undefined, where);
    }
    default:
      return {
        ok: false,
        error: `${where} answered a ${String(data.resultType)}; the query must be an instant vector or a scalar`,
      };
  }
}

/** A sample is `[<unix seconds>, "<value>"]`; the value is a string so NaN and ±Inf survive JSON. */
function sampleValue(sample: unknown, where: string): InstantResult {
  if (!Array.isArray(sample) || sample.length !== 2 || typeof sample[1] !== 'string')
    return { ok: false, error: `${where} answered a malformed sample` };
  const text: string = sample[1];
  const value = Number(text);
  // NaN (0/0 in a query) or ±Inf would compare false against every threshold downstream.
  if (!Number.isFinite(value)) return { ok: false, error: `${where} answered ${text}, not a finite number` };
  return { ok: true, value };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 120 ? `${flat.slice(0, 120)}…` : flat);
}
