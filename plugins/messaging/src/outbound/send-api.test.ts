import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSendApiClient } from './send-api.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** A send API on loopback answering with `answer`; counts the TCP connections it accepted. */
async function sendApi(answer: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v21.0`,
    connections: () => connections,
  };
}

const payload = { messaging_product: 'whatsapp', to: '6281200000001', type: 'text', text: { body: 'Halo' } };

describe('send API client', () => {
  it('posts the payload to {base}/{phone_number_id}/messages with the bearer token, on one kept-alive connection', async () => {
    const seen: Array<{ method?: string; url?: string; auth?: string; body: unknown }> = [];
    const api = await sendApi((req, body, res) => {
      seen.push({
        method: req.method,
        url: req.url,
        auth: req.headers.authorization,
        body: JSON.parse(body),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ messages: [{ id: `wamid.out.${seen.length}` }] }));
    });
    const client = createSendApiClient({ baseUrl: api.url, token: 'send-token', timeoutMs: 2_000 });
    expect(await client.send('1065/40', payload)).toEqual({ providerId: 'wamid.out.1' });
    expect(await client.send('1065/40', payload)).toEqual({ providerId: 'wamid.out.2' });
    client.close();
    expect(seen[0]).toEqual({
      method: 'POST',
      url: '/v21.0/1065%2F40/messages',
      auth: 'Bearer send-token',
      body: payload,
    });
    expect(api.connections()).toBe(1);
  });

  const NO_ID = 'send API answered without a valid message id';
  it.each([
    ['a non-2xx status', 503, '{"error":{}}', 'send API answered 503'],
    ['an answer without a message id', 200, '{"messages":[]}', NO_ID],
    ['an answer that is not JSON', 200, '<html>', NO_ID],
    // Stored as the outbound message's provider id: PostgreSQL refuses NUL, and a bounded id fits its index.
    ['an id with a NUL', 200, '{"messages":[{"id":"wamid.\\u0000x"}]}', NO_ID],
    ['an id with an unpaired surrogate', 200, '{"messages":[{"id":"wamid.\\ud800"}]}', NO_ID],
    ['an id of 201 characters', 200, `{"messages":[{"id":"${'w'.repeat(201)}"}]}`, NO_ID],
  ])('reports %s as an error', async (_name, status, body, error) => {
    const api = await sendApi((_req, _body, res) => res.writeHead(status).end(body));
    const client = createSendApiClient({ baseUrl: api.url, token: undefined, timeoutMs: 2_000 });
    expect(await client.send('1', payload)).toEqual({ error });
    client.close();
  });

  it('gives up after the timeout when the send API does not answer', async () => {
    const api = await sendApi(() => undefined);
    const client = createSendApiClient({ baseUrl: api.url, token: undefined, timeoutMs: 200 });
    const started = performance.now();
    expect(await client.send('1', payload)).toEqual({ error: 'send API timed out' });
    expect(performance.now() - started).toBeLessThan(2_000);
    client.close();
  });

  it('reports an unreachable send API', async () => {
    const api = await sendApi(() => undefined);
    const server = servers.pop() as Server;
    await new Promise((resolve) => server.close(resolve));
    const client = createSendApiClient({ baseUrl: api.url, token: undefined, timeoutMs: 2_000 });
    expect(await client.send('1', payload)).toMatchObject({
      error: expect.stringMatching(/^send API unreachable: .*ECONNREFUSED/) as unknown,
    });
    client.close();
  });
});
