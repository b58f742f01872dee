import type { InboundMessage } from '../domain/webhook-notification.ts';

export interface IngestBatcher {
  /**
   * Resolves once the messages are committed, with the provider ids this submission stored: ids that were
   * new, each counted once, and for the first submission of a shared write that carried it.
   */
  submit(messages: readonly InboundMessage[]): Promise<Set<string>>;
}

/**
 * Group commit for the webhook. While one write is in flight, the notifications that arrive queue up; when
 * it commits, all of them are written with the next single statement. An idle gateway writes each
 * notification at once (no timer, no added latency); a busy one writes many per statement and per commit.
 * Each request is answered only after the statement holding its messages committed, so the durability
 * contract (persisted before the 200) is unchanged. If a shared write fails, each request of it is
 * written on its own, so one bad notification cannot fail the others.
 */
export function createIngestBatcher(
  write: (messages: readonly InboundMessage[]) => Promise<Set<string>>,
  maxMessages = 500,
): IngestBatcher {
  interface Waiting {
    messages: readonly InboundMessage[];
    resolve: (stored: Set<string>) => void;
    reject: (err: unknown) => void;
  }
  const queue: Waiting[] = [];
  let writing = false;

  const drain = async () => {
    writing = true;
    while (queue.length > 0) {
      const batch: Waiting[] = [];
      let size = 0;
      while (
        queue.length > 0 &&
        (batch.length === 0 || size + (queue[0] as Waiting).messages.length <= maxMessages)
      ) {
        const next = queue.shift() as Waiting;
        batch.push(next);
        size += next.messages.length;
      }
      try {
        const stored = await write(batch.flatMap((w) => w.messages));
        const claimed = new Set<string>();
        for (const waiting of batch) waiting.resolve(claim(waiting.messages, stored, claimed));
      } catch (err) {
        if (batch.length === 1) (batch[0] as Waiting).reject(err);
        else {
          await Promise.all(
            batch.map((waiting) =>
              write(waiting.messages).then(
                (stored) => waiting.resolve(claim(waiting.messages, stored, new Set())),
                waiting.reject,
              ),
            ),
          );
        }
      }
    }
    writing = false;
  };

  return {
    submit(messages) {
      return new Promise((resolve, reject) => {
        queue.push({ messages, resolve, reject });
        if (!writing) void drain();
      });
    },
  };
}

/** The ids of `messages` that `stored` holds and no earlier submission claimed; claims them. */
function claim(
  messages: readonly InboundMessage[],
  stored: ReadonlySet<string>,
  claimed: Set<string>,
): Set<string> {
  const mine = new Set<string>();
  for (const { providerMessageId: id } of messages) {
    if (stored.has(id) && !claimed.has(id)) {
      mine.add(id);
      claimed.add(id);
    }
  }
  return mine;
}
