/**
 * The external knowledge service the FAQ syncs from, as a real HTTP server on loopback (plugins/messaging/README.md,
 * "FAQ", "The upstream format"): `GET /faq` answers the list with an ETag, 304 for a matching If-None-Match.
 * A test changes the list, makes the service fail or answer garbage, or holds answers to test concurrency.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamFaq {
  id: string;
  questions: string[];
  answer: string;
  language: 'id' | 'en';
  updatedAt: string;
}

export interface KnowledgeRequest {
  ifNoneMatch: string | undefined;
  authorization: string | undefined;
}

export interface KnowledgeStub {
  url: string;
  requests: KnowledgeRequest[];
  /** Replaces the list; the ETag changes with it. */
  setItems(items: UpstreamFaq[]): void;
  /** `ok` answers the list; `down` drops the connection; `error` answers 500; `garbage` answers non-JSON. */
  setMode(mode: 'ok' | 'down' | 'error' | 'garbage'): void;
  /** Holds the next answers until `release()`. */
  hold(): void;
  held(): number;
  release(): void;
  close(): Promise<void>;
}

export async function startKnowledgeStub(): Promise<KnowledgeStub> {
  let items: UpstreamFaq[] = [];
  let version = 1;
  let mode: 'ok' | 'down' | 'error' | 'garbage' = 'ok';
  let holding = false;
  const held: Array<() => void> = [];
  const requests: KnowledgeRequest[] = [];

  const answer = (res: ServerResponse, ifNoneMatch: string | undefined) => {
    const etag = `"v${version}"`;
    if (mode === 'down') {
      res.socket?.destroy();
      return;
    }
    if (mode === 'error') {
      res.writeHead(500).end('upstream failure');
      return;
    }
    if (mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json', etag }).end('{"not": "a list"');
      return;
    }
    if (ifNoneMatch === etag) {
      res.writeHead(304, { etag }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', etag }).end(JSON.stringify(items));
  };

  const server = createServer((req, res) => {
    req.resume();
    if (req.method !== 'GET' || req.url !== '/faq') {
      res.writeHead(404).end();
      return;
    }
    const ifNoneMatch = req.headers['if-none-match'];
    requests.push({ ifNoneMatch, authorization: req.headers.authorization });
    if (holding) held.push(() => answer(res, ifNoneMatch));
    else answer(res, ifNoneMatch);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/faq`,
    requests,
    setItems(next) {
      items = next;
      version++;
    },
    setMode(next) {
      mode = next;
    },
    hold() {
      holding = true;
    },
    held: () => held.length,
    release() {
      holding = false;
      for (const go of held.splice(0)) go();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
