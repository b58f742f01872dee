/**
 * The fuzz suite's HTTP client: node:http with the exact method, path, headers and body bytes given (fetch
 * would normalise paths and refuse some headers). Nothing is retried or decoded.
 */
import { Agent, request } from 'node:http';

/** One request as it goes on the wire (credentials already added). */
export interface WireRequest {
  method: string;
  /** Path and query exactly as sent. */
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

export interface HttpClient {
  /** Sends a request; rejects on a cut connection or when no complete answer came in time. */
  send(req: WireRequest): Promise<WireResponse>;
  /** Closes the idle keep-alive sockets. */
  close(): void;
}

/** A client for one gateway, with keep-alive sockets and a deadline per request. */
export function httpClient(baseUrl: string, timeoutMs: number): HttpClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const url = new URL(baseUrl);
  return {
    send: (req) => sendOne(agent, url, req, timeoutMs),
    close: () => agent.destroy(),
  };
}

function sendOne(agent: Agent, url: URL, req: WireRequest, timeoutMs: number): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(req.body.length);
    const outgoing = request(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          clearTimeout(timer);
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        });
      },
    );
    const timer = setTimeout(() => {
      outgoing.destroy(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    outgoing.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    outgoing.end(req.body);
  });
}
