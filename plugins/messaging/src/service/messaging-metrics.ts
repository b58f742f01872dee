import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Database } from '../../../../gateway/src/plugin-api.ts';
import { queueStore } from '../store/queue-store.ts';

export interface MessagingMetrics {
  webhookAck(seconds: number): void;
  /** Messages or status updates left out of an accepted notification (README, "Bad bytes in a notification"). */
  webhookRejected(kind: 'message' | 'status', count: number): void;
  processed(outcome: 'processed' | 'retry' | 'dead', seconds: number): void;
  sent(outcome: 'sent' | 'retry' | 'failed'): void;
}

/**
 * The messaging plugin's metrics (plugins/messaging/README.md, "Health and metrics"): the queue's depth
 * and the age of its oldest message (read from Postgres when scraped), processing latency (from the
 * provider's timestamp to processed), webhook acknowledgement latency, and reply sends.
 */
export function createMessagingMetrics(registry: Registry, db: Database): MessagingMetrics {
  const ack = new Histogram({
    name: 'gatehouse_messaging_webhook_ack_seconds',
    help: 'Time from receiving a webhook notification to acknowledging it (persisted)',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const rejected = new Counter({
    name: 'gatehouse_messaging_webhook_rejected_total',
    help: 'Messages and status updates left out of an accepted webhook notification (invalid identifiers or shape)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const processing = new Histogram({
    name: 'gatehouse_messaging_processing_seconds',
    help: 'Time from the provider timestamp of a message to the end of its processing attempt',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const sends = new Counter({
    name: 'gatehouse_messaging_sends_total',
    help: 'Reply send attempts through the provider API, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const depth = new Gauge({
    name: 'gatehouse_messaging_queue_depth',
    help: 'Inbound messages waiting for processing, and dead-lettered ones',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const row = await queueStore.depth(db);
      this.set({ state: 'queued' }, row?.queued ?? 0);
      this.set({ state: 'dead' }, row?.dead ?? 0);
      age.set(row?.oldest ?? 0);
    },
  });
  const age = new Gauge({
    name: 'gatehouse_messaging_queue_oldest_age_seconds',
    help: 'Age of the oldest inbound message still waiting for processing (0 when none)',
    registers: [registry],
  });
  void depth;
  return {
    webhookAck: (seconds) => ack.observe(seconds),
    webhookRejected: (kind, count) => rejected.inc({ kind }, count),
    processed: (outcome, seconds) => processing.observe({ outcome }, seconds),
    sent: (outcome) => sends.inc({ outcome }),
  };
}
