import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ApiAuthMode } from '../../../../gateway/src/plugin-api.ts';

export type HandshakeOutcome = 'pass' | 'fail' | 'would_deny' | 'skipped';

export interface RealtimeMetrics {
  handshake(mode: ApiAuthMode, outcome: HandshakeOutcome): void;
  /** One event emitted to its rooms, `seconds` after its trigger ran (just before its COMMIT). */
  delivered(type: string, seconds: number): void;
  listenerReconnected(): void;
  replayed(events: number): void;
}

/**
 * The realtime plugin's metrics (plugins/realtime/README.md, "Health and metrics"). Sockets and the
 * listener's state are read when scraped; the rest is counted as it happens.
 */
export function createRealtimeMetrics(
  registry: Registry,
  live: { sockets(): number; listenerConnected(): boolean },
): RealtimeMetrics {
  new Gauge({
    name: 'gatehouse_realtime_sockets',
    help: 'Sockets connected to this replica',
    registers: [registry],
    collect() {
      this.set(live.sockets());
    },
  });
  new Gauge({
    name: 'gatehouse_realtime_listener_connected',
    help: '1 while this replica LISTENs for events, 0 while it reconnects',
    registers: [registry],
    collect() {
      this.set(live.listenerConnected() ? 1 : 0);
    },
  });
  const handshakes = new Counter({
    name: 'gatehouse_realtime_handshakes_total',
    help: 'Socket handshakes by API_AUTH_MODE and outcome (the outcomes of the HTTP gate)',
    labelNames: ['mode', 'outcome'] as const,
    registers: [registry],
  });
  const events = new Counter({
    name: 'gatehouse_realtime_events_delivered_total',
    help: 'Events emitted to their rooms by this replica, by type',
    labelNames: ['type'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'gatehouse_realtime_delivery_seconds',
    help: 'Time from an event trigger (just before its COMMIT) to its emission to the rooms',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const reconnects = new Counter({
    name: 'gatehouse_realtime_listener_reconnects_total',
    help: 'Times the LISTEN connection was lost and established again',
    registers: [registry],
  });
  const replays = new Histogram({
    name: 'gatehouse_realtime_replay_events',
    help: 'Events replayed to one reconnecting client or subscription',
    buckets: [0, 1, 10, 100, 1_000, 10_000, 100_000],
    registers: [registry],
  });
  return {
    handshake: (mode, outcome) => handshakes.inc({ mode, outcome }),
    delivered(type, seconds) {
      events.inc({ type });
      latency.observe(Math.max(0, seconds));
    },
    listenerReconnected: () => reconnects.inc(),
    replayed: (count) => replays.observe(count),
  };
}
