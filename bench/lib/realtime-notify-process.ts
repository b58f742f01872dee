/**
 * The same-run baseline of `bench:realtime` (forked by it; see bench/realtime.ts): a bare `pg` client that
 * LISTENs on the channel the realtime triggers announce events on, and records when each `message.created`
 * NOTIFY arrives. COMMIT→NOTIFY is the floor under any realtime feature driven by PostgreSQL: what the
 * gateway adds on top (reading the event rows, socket.io, the WebSocket frames) is the rest of its latency.
 *
 * Requests (bench/lib/child-rpc.ts): `listen` ({ url }), `progress` (notifications so far), `report`
 * ({ ids, at }: event ids and receive times), `close`.
 */
import pg from 'pg';
import { EVENTS_CHANNEL } from '../../plugins/realtime/src/service/event-feed.ts';
import { serveParent } from './child-rpc.ts';
import { nowMs } from './realtime-bench-wire.ts';

let client: pg.Client | undefined;
const ids: number[] = [];
const at: number[] = [];

async function listen(body: { url: string }): Promise<void> {
  client = new pg.Client({ connectionString: body.url });
  await client.connect();
  client.on('notification', (notification) => {
    const received = nowMs();
    const event = JSON.parse(notification.payload ?? '{}') as { id?: number; type?: string };
    if (event.type !== 'message.created' || event.id === undefined) return;
    ids.push(event.id);
    at.push(received);
  });
  await client.query(`LISTEN ${EVENTS_CHANNEL}`);
}

serveParent({
  listen: (body) => listen(body as { url: string }),
  progress: () => ids.length,
  report: () => ({ ids: Float64Array.from(ids), at: Float64Array.from(at) }),
  close: () => client?.end(),
});
