/**
 * Every outbound peer of the fuzzed gateway in one loopback server that answers at once: the messaging send
 * API (`POST /{phone number id}/messages`, answered as the provider does), KYC webhook receivers and the
 * upstream. Fuzzed requests never reach the network, and background work never waits on a peer.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Sink {
  url: string;
  close(): Promise<void>;
}

export async function startSink(): Promise<Sink> {
  let sent = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const reply = /\/messages$/.test(req.url ?? '')
        ? { messaging_product: 'whatsapp', messages: [{ id: `wamid.sink.${++sent}` }] }
        : { ok: true };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
