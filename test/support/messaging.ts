/** Helpers for the messaging suites: a stand-in send API, WhatsApp notifications, a gateway with messaging. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../gateway/src/clock.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';

export { PHONE_NUMBER_ID, textMessage } from './whatsapp.ts';
export const VERIFY_TOKEN = 'verify-token-for-tests';
export const API_TOKEN = 'send-api-token-for-tests';

export interface SentMessage {
  phoneNumberId: string;
  authorization: string | undefined;
  body: {
    to: string;
    type: string;
    text: { body: string };
    template?: { name: string; language: { code: string }; components: unknown[] };
  };
}

/**
 * The provider's send API as a real HTTP server on loopback: the tests reach a stand-in over the network, as
 * the gateway reaches the provider, rather than a mock inside the process. It records every accepted send;
 * `failNext(n)` answers the next n sends with 500.
 */
export interface ProviderStub {
  url: string;
  sent: SentMessage[];
  failNext(n: number): void;
  /** Refuses the next n sends with this status and the provider's error `code` in a Graph-style body. */
  refuseNext(n: number, status: number, code: number): void;
  /** Leaves the next n sends unanswered until `releaseHeld()` (a send API that hangs). */
  holdNext(n: number): void;
  /** How many sends are held unanswered now. */
  held(): number;
  /** Answers the held sends: with 500 (default), or accepts them as any other send. */
  releaseHeld(answer?: 'fail' | 'accept'): void;
  close(): Promise<void>;
}

export async function startProviderStub(): Promise<ProviderStub> {
  const sent: SentMessage[] = [];
  let failures = 0;
  let refusals: { n: number; status: number; code: number } = { n: 0, status: 400, code: 0 };
  let holds = 0;
  /** Held sends, each with what accepting it would do. */
  const held: Array<{ res: ServerResponse; accept: () => void }> = [];
  let counter = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const match = /^\/([^/]+)\/messages$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !match) {
        res.writeHead(404).end();
        return;
      }
      const accept = () => {
        sent.push({
          phoneNumberId: decodeURIComponent(match[1] as string),
          authorization: req.headers.authorization,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as SentMessage['body'],
        });
        counter++;
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            messaging_product: 'whatsapp',
            contacts: [{ input: 'x', wa_id: 'x' }],
            messages: [{ id: `wamid.out.${counter}` }],
          }),
        );
      };
      if (holds > 0) {
        holds--;
        held.push({ res, accept });
        return;
      }
      if (refusals.n > 0) {
        refusals.n--;
        res
          .writeHead(refusals.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'stand-in refusal', code: refusals.code } }));
        return;
      }
      if (failures > 0) {
        failures--;
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":{"message":"stand-in failure"}}');
        return;
      }
      accept();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    failNext: (n) => {
      failures = n;
    },
    refuseNext: (n, status, code) => {
      refusals = { n, status, code };
    },
    holdNext: (n) => {
      holds = n;
    },
    held: () => held.length,
    releaseHeld: (answer = 'fail') => {
      for (const { res, accept } of held.splice(0)) {
        if (answer === 'accept') accept();
        else res.writeHead(500).end();
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The env of a gateway running messaging against the stand-in provider. */
export function messagingEnv(
  provider: { url: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    GATEWAY_PLUGINS: 'auth,messaging',
    WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
    MESSAGING_API_BASE_URL: provider.url,
    MESSAGING_API_TOKEN: API_TOKEN,
    MESSAGING_WORKER_INTERVAL_MS: '25',
    ...extra,
  };
}

export function startMessagingGateway(options: {
  databaseUrl: string;
  provider: { url: string };
  env?: Record<string, string>;
  clock?: Clock;
}): Promise<TestGateway> {
  return startTestGateway({
    databaseUrl: options.databaseUrl,
    clock: options.clock,
    env: messagingEnv(options.provider, options.env),
  });
}

export function postWebhook(
  gateway: { url: string },
  payload: unknown,
  headers: Record<string, string> = {},
) {
  return fetch(`${gateway.url}/webhook/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}
