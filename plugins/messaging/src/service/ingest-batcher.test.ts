import { describe, expect, it } from 'vitest';
import { createIngestBatcher } from './ingest-batcher.ts';
import type { InboundMessage } from '../domain/webhook-notification.ts';

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
    expect(await Promise.all(others)).toEqual([new Set(['b']), new Set(['c']), new Set(['d'])]);
    expect(writes).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('answers each submission with what it stored: an id stored once counts once, for the first carrying it', async () => {
    let release: () => void = () => undefined;
    let writes = 0;
    const batcher = createIngestBatcher(async (messages) => {
      if (++writes === 1) await new Promise<void>((resolve) => (release = resolve));
      // The store: new ids are stored once; 'old' was stored by an earlier delivery.
      return new Set(messages.map((m) => m.providerMessageId).filter((id) => id !== 'old'));
    });
    const first = batcher.submit([message('a')]);
    const twice = batcher.submit([message('x'), message('x'), message('old')]);
    const again = batcher.submit([message('x'), message('y')]);
    release();
    await first;
    expect(await twice).toEqual(new Set(['x']));
    expect(await again).toEqual(new Set(['y']));
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
