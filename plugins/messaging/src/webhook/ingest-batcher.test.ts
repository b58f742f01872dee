import { describe, expect, it } from 'vitest';
import { createIngestBatcher } from './ingest-batcher.ts';
import type { InboundMessage } from './notification.ts';

const message = (id: string): InboundMessage => ({
  providerMessageId: id,
  phoneNumberId: '1',
  from: '62812',
  fromUserId: null,
  contactName: null,
  type: 'text',
  text: id,
  timestamp: new Date(0),
  raw: {},
});

describe('ingest group commit', () => {
  it('writes at once when idle, and coalesces what arrives during a write into the next one', async () => {
    const writes: string[][] = [];
    let release: () => void = () => undefined;
    const batcher = createIngestBatcher(async (messages) => {
      writes.push(messages.map((m) => m.providerMessageId));
      if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return new Set(messages.map((m) => m.providerMessageId));
    });
    const first = batcher.submit([message('a')]);
    const others = ['b', 'c', 'd'].map((id) => batcher.submit([message(id)]));
    release();
    expect(await first).toEqual(new Set(['a']));
    for (const pending of others) expect(await pending).toEqual(new Set(['b', 'c', 'd']));
    expect(writes).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('writes each request on its own when a shared write fails, so only the bad one fails', async () => {
    let hold: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (hold = resolve));
    const batcher = createIngestBatcher(async (messages) => {
      if (messages.some((m) => m.providerMessageId === 'first')) await held;
      if (messages.some((m) => m.providerMessageId === 'bad')) throw new Error('check constraint');
      return new Set(messages.map((m) => m.providerMessageId));
    });
    const first = batcher.submit([message('first')]);
    const good = batcher.submit([message('good')]);
    const bad = batcher.submit([message('bad')]);
    hold();
    await first;
    expect(await good).toEqual(new Set(['good']));
    await expect(bad).rejects.toThrow('check constraint');
  });
});
