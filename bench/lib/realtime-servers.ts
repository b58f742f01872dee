import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forkChild } from './child-rpc.ts';
import { startRealtimeGateway } from './realtime-gateway.ts';
import type { Teardown } from './teardown.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BARE_SCRIPT = fileURLToPath(new URL('./realtime-bare-server.ts', import.meta.url));

/** What `bench:realtime` runs its sockets against: gateway replicas, or the bare socket.io baseline. */
export type ServerKind = 'gateway' | 'bare';

/** One process the sockets connect to. */
export interface RealtimeServer {
  name: string;
  url: string;
  pid: number;
  /** The gateway's Prometheus listener; null for the bare baseline, which has none. */
  metricsUrl: string | null;
}

/** Starts `count` servers of `kind` on the database, one after the other; their stops go to `teardown`. */
export async function startServers(
  kind: ServerKind,
  count: number,
  databaseUrl: string,
  teardown: Teardown,
): Promise<RealtimeServer[]> {
  const servers: RealtimeServer[] = [];
  for (let n = 1; n <= count; n++) {
    servers.push(
      kind === 'gateway'
        ? await startGateway(`realtime-gateway-${count}r-${n}`, databaseUrl, teardown)
        : await startBare(`realtime-bare-${n}`, databaseUrl, teardown),
    );
  }
  return servers;
}

async function startGateway(name: string, databaseUrl: string, teardown: Teardown): Promise<RealtimeServer> {
  const gateway = await startRealtimeGateway({ name, databaseUrl });
  // SIGTERM (the gateway drops its sockets and drains); SIGKILL if it has not exited in time.
  teardown.add(name, async () => {
    const timer = setTimeout(() => process.kill(gateway.pid, 'SIGKILL'), 30_000);
    await gateway.stop();
    clearTimeout(timer);
  });
  return { name, url: gateway.url, pid: gateway.pid, metricsUrl: gateway.metricsUrl };
}

async function startBare(name: string, databaseUrl: string, teardown: Teardown): Promise<RealtimeServer> {
  const child = forkChild({ name, script: BARE_SCRIPT, logFile: path.join(root, `bench/out/${name}.log`) });
  teardown.add(name, () => child.stop());
  const { port } = await child.request<{ port: number }>('start', { databaseUrl });
  return { name, url: `http://127.0.0.1:${port}`, pid: child.pid, metricsUrl: null };
}
