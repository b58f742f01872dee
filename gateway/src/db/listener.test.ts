/**
 * The LISTEN connection against the real test PostgreSQL: every way a connection dies (the backend
 * terminated, a black-holed network, an unreachable server, a failing `onConnected`) ends in a reconnect
 * with LISTEN in place again, and `stop()` leaves nothing open whatever the listener was doing. Faults the
 * server cannot show are made by a TCP proxy on loopback (test/support/tcp-proxy.ts).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.ts';
import { createDatabase } from './database.ts';
import { backoffDelay, checkListening } from './listener-connection.ts';
import { listen, type ListenOptions, type Listener } from './listener.ts';

const CHANNEL = 'listener_test';
const OTHER_CHANNEL = 'listener_test_other';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase({ empty: true });
});
afterAll(async () => {
  await testDb?.drop();
});

interface Harness {
  listener: Listener;
  appName: string;
  received: string[];
  connects: number;
  disconnects: number;
  logs: Array<{ level: number; msg: string; [key: string]: unknown }>;
}

/** A listener on CHANNEL, directly or through `proxy`, stopped when the test ends. */
async function startListener(
  options: { proxy?: TcpProxy } & Partial<
    Omit<ListenOptions, 'db' | 'logger' | 'channels' | 'onNotify'>
  > = {},
): Promise<Harness> {
  const { proxy, ...overrides } = options;
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  const db = createDatabase({
    connectionString: proxy ? proxy.url(testDb.url) : testDb.url,
    max: 1,
    logger,
  });
  onTestFinished(() => db.pool.end());
  const appName = overrides.applicationName ?? `listener-test-${randomBytes(4).toString('hex')}`;
  const harness = {
    appName,
    received: [] as string[],
    connects: 0,
    disconnects: 0,
    get logs() {
      return lines.map((line) => JSON.parse(line) as Harness['logs'][number]);
    },
  } as Harness;
  harness.listener = await listen({
    db,
    logger,
    channels: [CHANNEL],
    applicationName: appName,
    onNotify: (_channel, payload) => void harness.received.push(payload),
    ...overrides,
    onConnected: async () => {
      harness.connects++;
      await overrides.onConnected?.();
    },
    onDisconnected: () => {
      harness.disconnects++;
      overrides.onDisconnected?.();
    },
  });
  onTestFinished(() => harness.listener.stop());
  return harness;
}

async function proxyToTestDb(): Promise<TcpProxy> {
  const target = new URL(testDb.url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
  onTestFinished(() => proxy.close());
  return proxy;
}

/** The listener's backends: what the server still holds open for it. */
async function backends(appName: string): Promise<number> {
  const { rows } = await testDb.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
    [appName],
  );
  return rows[0]?.n ?? 0;
}

async function terminate(...appNames: string[]): Promise<void> {
  const { rows } = await testDb.pool.query<{ n: number }>(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = ANY($1)`,
    [appNames],
  );
  expect(rows[0]?.n).toBe(appNames.length);
}

async function notify(payload: string): Promise<void> {
  await testDb.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
}

/** A NOTIFY sent now reaches the listener: LISTEN is in place on a working connection. */
async function expectDelivery(harness: Harness, payload: string): Promise<void> {
  await notify(payload);
  await expect.poll(() => harness.received.includes(payload)).toBe(true);
}

/** The gaps between consecutive accepted connections, from index `from` on. */
function gaps(accepted: readonly number[], from: number): number[] {
  return accepted.slice(from + 1).map((at, i) => at - (accepted[from + i] as number));
}

/** Jitter pinned near its ceiling: each delay is (almost) the ceiling, so the schedule can be checked. */
const nearCeiling = () => 0.999;

describe('listen', () => {
  it('the listening backend terminated: onDisconnected, a reconnect, onConnected again, notifications flow', async () => {
    const harness = await startListener({ reconnectDelayMs: 20 });
    expect(harness.listener.connected).toBe(true);
    expect(harness.connects).toBe(1);
    await expectDelivery(harness, 'before');

    await terminate(harness.appName);
    await expect.poll(() => harness.listener.reconnects).toBe(1);
    expect(harness.disconnects).toBe(1);
    expect(harness.connects).toBe(2);
    expect(harness.listener.connected).toBe(true);
    await expectDelivery(harness, 'after');
    await expect.poll(() => backends(harness.appName)).toBe(1);

    const lost = harness.logs.filter((line) => line.level === 40);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.msg).toBe('LISTEN connection lost; reconnecting');
    const restored = harness.logs.filter((line) => line.msg === 'LISTEN connection restored');
    expect(restored).toHaveLength(1);
    expect(restored[0]).toMatchObject({ level: 30, attempts: 1, reconnects: 1 });
    // Never the connection string, nor its credentials.
    const { username, password } = new URL(testDb.url);
    const logged = JSON.stringify(harness.logs);
    expect(logged).not.toContain(`${username}:${password}@`);
    expect(logged).not.toContain(testDb.url);
  });

  it('a failing onConnected after a reconnect is a failed connect: closed, backed off, retried', async () => {
    let calls = 0;
    const harness = await startListener({
      reconnectDelayMs: 20,
      onConnected: () => {
        calls++;
        if (calls === 2) throw new Error('reload failed');
      },
    });
    await terminate(harness.appName);
    await expect.poll(() => harness.listener.reconnects).toBe(1);
    expect(calls).toBe(3);
    // Each connect that reached LISTEN is undone once: the lost one and the one whose reload failed.
    expect(harness.disconnects).toBe(2);
    expect(harness.listener.connected).toBe(true);
    await expect.poll(() => backends(harness.appName)).toBe(1);
    await expectDelivery(harness, 'after a failed reload');
  });

  it('the first connect must succeed: listen rejects, leaving nothing open', async () => {
    const proxy = await proxyToTestDb();
    proxy.setMode('refuse');
    await expect(startListener({ proxy })).rejects.toThrow();

    const applicationName = `listener-test-${randomBytes(4).toString('hex')}`;
    let listeningBackends = 0;
    await expect(
      startListener({
        applicationName,
        onConnected: async () => {
          listeningBackends = await backends(applicationName);
          throw new Error('load failed');
        },
      }),
    ).rejects.toThrow('load failed');
    expect(listeningBackends).toBe(1);
    await expect.poll(() => backends(applicationName)).toBe(0);
  });

  it('a connection that goes silent after the login is given up: LISTEN is bounded too', async () => {
    const proxy = await proxyToTestDb();
    proxy.setMode('login-only');
    await expect(startListener({ proxy, heartbeatTimeoutMs: 300 })).rejects.toThrow(
      'LISTEN: no answer within 300 ms',
    );
    await expect.poll(() => proxy.open).toBe(0);

    // After a reconnect the same: the attempt is given up and the next one, through again, succeeds.
    proxy.setMode('forward');
    const harness = await startListener({ proxy, reconnectDelayMs: 10, heartbeatTimeoutMs: 300 });
    proxy.setMode('login-only');
    const from = proxy.accepted.length;
    await terminate(harness.appName);
    await expect.poll(() => proxy.accepted.length - from).toBeGreaterThanOrEqual(2);
    proxy.setMode('forward');
    await expect.poll(() => harness.listener.reconnects).toBe(1);
    await expectDelivery(harness, 'through again');
  });

  it('the heartbeat gives up a black-holed connection and reconnects', async () => {
    const proxy = await proxyToTestDb();
    const harness = await startListener({
      proxy,
      reconnectDelayMs: 10,
      heartbeatMs: 100,
      heartbeatTimeoutMs: 300,
    });
    await expectDelivery(harness, 'before');

    // The open connection goes silent without a reset; new connections still get through.
    proxy.pause();
    await expect.poll(() => harness.listener.reconnects).toBe(1);
    expect(harness.disconnects).toBe(1);
    const lost = harness.logs.filter((line) => line.level === 40);
    expect(lost.map((line) => line.msg)).toEqual(['LISTEN heartbeat failed; reconnecting']);
    expect(JSON.stringify(lost[0]?.err)).toContain('heartbeat: no answer within 300 ms');
    await expectDelivery(harness, 'after');
    // The hung connection was closed, so the proxy closed its side to the server too.
    await expect.poll(() => backends(harness.appName)).toBe(1);
    await expect.poll(() => proxy.open).toBe(1);
  });

  it('backs off exponentially while the server is unreachable, recovers, and starts over after a reconnect', async () => {
    const proxy = await proxyToTestDb();
    const harness = await startListener({
      proxy,
      reconnectDelayMs: 20,
      maxReconnectDelayMs: 2_000,
      heartbeatMs: 0,
      random: nearCeiling,
    });
    proxy.setMode('refuse');
    const from = proxy.accepted.length;
    await terminate(harness.appName);

    // Attempt n waits about 20 ms · 2^n, until the ceiling.
    await expect.poll(() => proxy.accepted.length - from, { timeout: 30_000 }).toBeGreaterThanOrEqual(7);
    expect(harness.listener.connected).toBe(false);
    const observed = gaps(proxy.accepted, from);
    for (const [n, gap] of observed.slice(0, 6).entries()) {
      expect(gap).toBeGreaterThanOrEqual(backoffDelay(n + 1, 20, 2_000, nearCeiling) - 2);
    }

    proxy.setMode('forward');
    await expect.poll(() => harness.listener.reconnects, { timeout: 30_000 }).toBe(1);
    await expectDelivery(harness, 'back');

    // A reconnect resets the backoff: the next outage starts at 20 ms again, not at the 2 s ceiling.
    proxy.setMode('refuse');
    const second = proxy.accepted.length;
    await terminate(harness.appName);
    await expect.poll(() => proxy.accepted.length - second).toBeGreaterThanOrEqual(2);
    expect(gaps(proxy.accepted, second)[0]).toBeLessThan(1_000);
  });

  it('stop() during a pending reconnect leaves no connection and no timer', async () => {
    // Two listeners lose their connections at the same moment and back off on the same schedule; the
    // one left running shows when the stopped one would have tried again.
    const stoppedProxy = await proxyToTestDb();
    const runningProxy = await proxyToTestDb();
    const settings = { reconnectDelayMs: 40, heartbeatMs: 0, random: nearCeiling };
    const stopped = await startListener({ proxy: stoppedProxy, ...settings });
    const running = await startListener({ proxy: runningProxy, ...settings });
    stoppedProxy.setMode('refuse');
    runningProxy.setMode('refuse');
    const stoppedFrom = stoppedProxy.accepted.length;
    const runningFrom = runningProxy.accepted.length;
    await terminate(stopped.appName, running.appName);
    await expect.poll(() => stoppedProxy.accepted.length - stoppedFrom).toBeGreaterThanOrEqual(1);

    await stopped.listener.stop();
    const attemptsAtStop = stoppedProxy.accepted.length - stoppedFrom;
    expect(stopped.listener.connected).toBe(false);
    // The running one has made two more attempts: the stopped one's next attempt was due before them.
    await expect
      .poll(() => runningProxy.accepted.length - runningFrom)
      .toBeGreaterThanOrEqual(attemptsAtStop + 2);
    expect(stoppedProxy.accepted.length - stoppedFrom).toBe(attemptsAtStop);
    await expect.poll(() => backends(stopped.appName)).toBe(0);
    await expect.poll(() => stoppedProxy.open).toBe(0);
  });

  it('stop() during a connect in progress closes that connection', async () => {
    const proxy = await proxyToTestDb();
    const harness = await startListener({ proxy, reconnectDelayMs: 10, heartbeatMs: 0 });
    // The server accepts the next connection and never answers it: the reconnect hangs in connect.
    proxy.setMode('hold');
    const from = proxy.accepted.length;
    await terminate(harness.appName);
    await expect.poll(() => proxy.accepted.length - from).toBe(1);
    expect(proxy.open).toBe(1);

    await harness.listener.stop();
    // Closed by stop() itself, long before the connect timeout (10 s) would have given up on it.
    await expect.poll(() => proxy.open, { timeout: 5_000 }).toBe(0);
    await expect.poll(() => backends(harness.appName)).toBe(0);
    expect(harness.listener.reconnects).toBe(0);
  });
});

describe('checkListening', () => {
  it('names a channel the connection does not listen on', async () => {
    const client = new pg.Client({ connectionString: testDb.url });
    await client.connect();
    onTestFinished(() => client.end());
    await client.query(`LISTEN ${CHANNEL}`);
    expect(await checkListening(client, [CHANNEL], 5_000)).toBeNull();
    expect(await checkListening(client, [CHANNEL, OTHER_CHANNEL], 5_000)).toBe(
      `heartbeat: not listening on ${OTHER_CHANNEL}`,
    );
  });
});

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the ceiling, drawn uniformly below it', () => {
    const ceilings = [0, 1, 2, 3, 4, 5, 6, 60].map((n) => backoffDelay(n, 100, 5_000, () => 0.999999));
    expect(ceilings).toEqual([99, 199, 399, 799, 1599, 3199, 4999, 4999]);
    expect(backoffDelay(3, 100, 5_000, () => 0)).toBe(0);
    expect(backoffDelay(3, 100, 5_000, () => 0.5)).toBe(400);
  });
});
