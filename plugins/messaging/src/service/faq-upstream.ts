import { UpstreamListSchema, type UpstreamItem } from '../domain/faq-schemas.ts';

/** What one pull of the upstream FAQ list gave. */
export type UpstreamPull =
  | { kind: 'not_modified' }
  | { kind: 'list'; items: UpstreamItem[]; etag: string | null }
  | { kind: 'error'; error: string };

export interface UpstreamOptions {
  url: string;
  token: string | undefined;
  timeoutMs: number;
  maxBytes: number;
}

/** An ETag as sent back in If-None-Match: visible ASCII, bounded (anything else is not kept). */
function usableEtag(value: string | null): string | null {
  return value !== null && value.length <= 512 && /^[\x21-\x7e]+$/.test(value) ? value : null;
}

/** The body, read up to `maxBytes`; null when it is longer (the rest is not read). */
async function boundedBody(res: Response, maxBytes: number): Promise<Buffer | null> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    return null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (!res.body) return Buffer.alloc(0);
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) return null;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

function describe(err: unknown): string {
  const error = err as { name?: string; message?: string; cause?: { code?: string } };
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timeout';
  return error.cause?.code ?? error.message ?? 'unknown failure';
}

/**
 * Pulls the FAQ list from the knowledge service (README, "FAQ", "The upstream format"): a GET with the
 * token as a bearer and the last ETag in If-None-Match, bounded in time (the whole exchange) and in size.
 * Never throws: every failure is an `error` whose text names neither the token nor the body.
 */
export async function pullUpstream(options: UpstreamOptions, etag: string | null): Promise<UpstreamPull> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const res = await fetch(options.url, {
      signal,
      redirect: 'error',
      headers: {
        accept: 'application/json',
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(etag ? { 'if-none-match': etag } : {}),
      },
    });
    if (res.status === 304) {
      await res.body?.cancel();
      return { kind: 'not_modified' };
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      return { kind: 'error', error: `upstream answered ${res.status}` };
    }
    const body = await boundedBody(res, options.maxBytes);
    if (body === null) return { kind: 'error', error: `upstream list larger than ${options.maxBytes} bytes` };
    return parseList(body, usableEtag(res.headers.get('etag')));
  } catch (err) {
    return { kind: 'error', error: `upstream unreachable: ${describe(err)}` };
  }
}

function parseList(body: Buffer, etag: string | null): UpstreamPull {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { kind: 'error', error: 'upstream list is not JSON' };
  }
  const parsed = UpstreamListSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first?.path.join('.') || '(root)';
    return {
      kind: 'error',
      error: `upstream list is not in the FAQ format: ${where}: ${first?.message ?? 'invalid'}`.slice(0, 500),
    };
  }
  return { kind: 'list', items: parsed.data, etag };
}
