/**
 * The bare socket.io baseline of `bench:realtime` (forked by it; see bench/realtime.ts): the least a realtime
 * server driven by PostgreSQL can do, on `node:http` and socket.io with their defaults. LISTEN on the
 * triggers' channel; read the event rows the NOTIFYs name (one query per burst, as the plugin reads) and
 * emit each to its rooms, in the plugin's wire format. A socket joins the rooms its
 * handshake asks for and is told `ready`. No authentication, entitlement, replay, recheck, metrics or logs:
 * the gateway's latency over this one is what those cost (and what the gateway's own work costs), on the
 * same machine in the same run.
 *
 * Requests (bench/lib/child-rpc.ts): `start` ({ databaseUrl } → { port }), `close`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Server } from 'socket.io';
import { EVENTS_CHANNEL } from '../../plugins/realtime/src/service/event-feed.ts';
import { serveParent } from './child-rpc.ts';

interface EventRow {
  id: string;
  type: string;
  rooms: string[];
  payload: unknown;
  created_at: Date;
}

let stop: (() => Promise<void>) | undefined;

async function start(body: { databaseUrl: string }): Promise<{ port: number }> {
  const http = createServer();
  const io = new Server(http, { path: '/socket.io', serveClient: false });
  io.on('connection', (socket) => {
    const rooms = (socket.handshake.auth as { rooms?: unknown }).rooms;
    if (Array.isArray(rooms)) void socket.join(rooms.filter((room) => typeof room === 'string'));
    socket.emit('ready', { lastEventId: 0, rooms: [...socket.rooms], refused: [], replayed: 0 });
  });
  const reader = new pg.Client({ connectionString: body.databaseUrl });
  const listener = new pg.Client({ connectionString: body.databaseUrl });
  await Promise.all([reader.connect(), listener.connect()]);
  const read = readerOf(reader, io);
  listener.on('notification', read);
  await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  stop = async () => {
    await io.close();
    await Promise.all([reader.end(), listener.end()]);
  };
  return { port: (http.address() as AddressInfo).port };
}

/**
 * Reads the rows the NOTIFYs name and emits them in id order; NOTIFYs arriving during a read are read
 * together after it. Reading by id, not "after the last id", needs no care for ids committed out of order.
 */
function readerOf(db: pg.Client, io: Server): (notification: pg.Notification) => void {
  let pending: number[] = [];
  let reading = false;
  const read = async (): Promise<void> => {
    while (pending.length > 0) {
      const ids = pending;
      pending = [];
      const { rows } = await db.query<EventRow>(
        'SELECT id, type, rooms, payload, created_at FROM realtime_events WHERE id = ANY($1::bigint[]) ORDER BY id',
        [ids],
      );
      for (const row of rows) {
        io.to(row.rooms).emit('event', {
          id: Number(row.id),
          type: row.type,
          rooms: row.rooms,
          createdAt: row.created_at.toISOString(),
          payload: row.payload,
        });
      }
    }
  };
  return (notification) => {
    pending.push((JSON.parse(notification.payload ?? '{}') as { id: number }).id);
    if (reading) return;
    reading = true;
    void read()
      .catch((err: unknown) => console.error('reading events failed', err))
      .finally(() => (reading = false));
  };
}

serveParent({
  start: (body) => start(body as { databaseUrl: string }),
  close: () => stop?.(),
});
