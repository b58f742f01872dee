/**
 * Shutdown and long-lived connections, in-process on a real database: an upgraded connection (what a
 * WebSocket is to the HTTP server) keeps the drain waiting until SHUTDOWN_TIMEOUT_MS unless a plugin ends
 * it in `onShutdown`, which runs as soon as the server stops accepting, while in-flight requests still
 * drain; at the deadline whatever is left, upgraded connections included, is cut (ADR 0001, the hooks).
 */
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BUILTIN_PLUGINS } from '../../app/builtin-plugins.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';
import { fixturePlugin, releaseSlow } from '../../test/fixtures/fixture-plugin.ts';
import { defineErrors } from '../src/errors/catalogue.ts';
import { definePlugin } from '../src/plugin/types.ts';

const DEADLINE_PASSED = 'shutdown: drain deadline passed, closing remaining connections';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

/**
 * A plugin that accepts every upgrade and keeps the connection open, as a WebSocket server does, and
 * records its hooks in `events`; `onShutdown` runs each of `shutdownHooks`.
 */
function upgradesPlugin(options: { events: string[]; shutdownHooks: Array<(open: Set<Duplex>) => unknown> }) {
  return definePlugin({
    id: 'upgrades',
    dependsOn: [],
    config: z.object({}),
    errors: defineErrors({}),
    register(ctx) {
      const open = new Set<Duplex>();
      ctx.hooks.onReady(({ server }) => {
        server.on('upgrade', (_req, socket: Duplex) => {
          open.add(socket);
          socket.on('close', () => open.delete(socket));
          socket.on('error', () => undefined);
          socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n');
        });
      });
      for (const hook of options.shutdownHooks) {
        ctx.hooks.onShutdown(async () => {
          options.events.push('onShutdown');
          await hook(open);
        });
      }
      ctx.hooks.onClose(() => void options.events.push('onClose'));
    },
  });
}

const endAll = (open: Set<Duplex>) => {
  for (const socket of open) socket.end();
};

async function start(options: {
  timeoutMs: number;
  shutdownHooks: Array<(open: Set<Duplex>) => unknown>;
  events?: string[];
}): Promise<TestGateway> {
  const gateway = await startTestGateway({
    databaseUrl: db.url,
    env: { GATEWAY_PLUGINS: 'fixture,upgrades', SHUTDOWN_TIMEOUT_MS: String(options.timeoutMs) },
    available: [
      ...BUILTIN_PLUGINS,
      fixturePlugin,
      upgradesPlugin({ events: options.events ?? [], shutdownHooks: options.shutdownHooks }),
    ],
  });
  onTestFinished(() => gateway.close());
  return gateway;
}

/** A raw connection upgraded by the gateway; resolves once the 101 arrived. */
async function upgraded(gateway: TestGateway): Promise<{ socket: Socket; closed: Promise<void> }> {
  const url = new URL(gateway.url);
  const socket = connect(Number(url.port), url.hostname);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.write('GET /socket HTTP/1.1\r\nHost: gateway\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n');
  const head = await new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(String(chunk))));
  expect(head).toMatch(/^HTTP\/1\.1 101 /);
  // Read on, so the gateway ending the connection is seen.
  socket.resume();
  return { socket, closed };
}

const messages = (gateway: TestGateway) => gateway.logs().map((line) => line.msg);

describe('onShutdown', () => {
  it('ends upgraded connections at once: close() does not wait for a long drain deadline', async () => {
    const gateway = await start({ timeoutMs: 600_000, shutdownHooks: [endAll] });
    const client = await upgraded(gateway);

    const started = performance.now();
    await gateway.close();
    await client.closed;
    // Bounded generously for a loaded machine; the deadline was ten minutes away.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(messages(gateway)).not.toContain(DEADLINE_PASSED);
    expect(messages(gateway)).toContain('shutdown complete');
  });

  it('without one, the drain waits for an upgraded connection until the deadline, then cuts it', async () => {
    const gateway = await start({ timeoutMs: 300, shutdownHooks: [] });
    const client = await upgraded(gateway);

    await gateway.close();
    await client.closed;
    expect(messages(gateway)).toContain(DEADLINE_PASSED);
    expect(messages(gateway)).toContain('shutdown complete');
  });

  it('runs as shutdown begins, while an in-flight request drains, and before onClose', async () => {
    const events: string[] = [];
    const gateway = await start({ timeoutMs: 600_000, shutdownHooks: [endAll], events });
    const slowStarted = new Promise((resolve) => releaseSlow.once('started', resolve));
    const inFlight = fetch(`${gateway.url}/fixture/slow`).then(async (res) => {
      events.push('request answered');
      return { status: res.status, body: (await res.json()) as unknown };
    });
    await slowStarted;

    const closing = gateway.close();
    await expect.poll(() => events).toContain('onShutdown');
    expect(events).toEqual(['onShutdown']);
    releaseSlow.emit('release');
    expect(await inFlight).toEqual({ status: 200, body: { finished: true } });
    await closing;
    expect(events).toEqual(['onShutdown', 'request answered', 'onClose']);
  });

  it('hooks run concurrently; a failing one is logged, a hanging one is cut off by the deadline', async () => {
    const events: string[] = [];
    const gateway = await start({
      timeoutMs: 300,
      events,
      shutdownHooks: [
        () => new Promise(() => undefined),
        () => {
          throw new Error('could not close');
        },
        endAll,
      ],
    });
    const client = await upgraded(gateway);

    await gateway.close();
    await client.closed;
    expect(events).toEqual(['onShutdown', 'onShutdown', 'onShutdown', 'onClose']);
    const logs = gateway.logs();
    expect(logs.filter((line) => line.msg === 'shutdown hook failed')).toMatchObject([
      { err: { message: 'could not close' } },
    ]);
    expect(messages(gateway)).toContain('shutdown: onShutdown hooks still running at the drain deadline');
    // The server itself had drained: the hook that ended the upgraded connection ran beside the hanging one.
    expect(messages(gateway)).not.toContain(DEADLINE_PASSED);
    expect(messages(gateway)).toContain('shutdown complete');
  });
});
