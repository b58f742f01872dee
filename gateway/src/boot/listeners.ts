import { once } from 'node:events';
import type { Server } from 'node:http';
import { BootError } from '../boot-error.ts';

export async function listen(server: Server, port: number, host: string, setting: string): Promise<void> {
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

export function urlOf(server: Server): string {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server is not listening on TCP');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
}

export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server?.listening) return;
  const closed = once(server, 'close');
  server.close();
  server.closeAllConnections();
  await closed;
}
