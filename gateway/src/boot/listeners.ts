import { once } from 'node:events';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { BootError } from '../boot-error.ts';

/**
 * Binds `server` to `host:port`; a port in use or not allowed refuses boot naming the setting that chose it
 * (`setting`: PORT or METRICS_PORT), like every other boot problem.
 */
export async function listenOrRefuse(
  server: Server,
  port: number,
  host: string,
  setting: string,
): Promise<void> {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new BootError([`${setting}: ${host}:${port} is already in use`]);
    if (code === 'EACCES') throw new BootError([`${setting}: not allowed to listen on ${host}:${port}`]);
    throw err;
  }
}

/** The URL a client on this machine reaches a listening server at (a wildcard address becomes 127.0.0.1). */
export function urlOf(server: Server): string {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server is not listening on TCP');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
}

/** Closes a listening server and every connection it still holds; nothing when it does not listen. */
export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server?.listening) return;
  const closed = once(server, 'close');
  server.close();
  server.closeAllConnections();
  await closed;
}

/**
 * Every open connection of `server`, kept from its first one on: at the drain deadline shutdown destroys
 * what is left, upgraded connections (WebSockets) included, which `closeAllConnections()` does not know of
 * once they left HTTP.
 */
export function trackConnections(server: Server): ReadonlySet<Socket> {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return open;
}
