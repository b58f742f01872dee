/**
 * KYC webhooks end to end (README, "Webhooks"): the real gateway on real Postgres posts to a real HTTP
 * receiver on loopback, which checks every signature the way a tenant would (verifyWebhookSignature).
 * Backoff is crossed by moving the gateway's injected clock, never by sleeping.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../src/webhooks/signature.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { createManualClock } from '../../../test/support/core.ts';
import {
  createKey,
  createTenant,
  staff,
  staffHeaders,
  startKycGateway,
  tenantCall,
} from '../../../test/support/kyc.ts';

interface Attempt {
  attempt: number;
  at: string;
  httpStatus: number | null;
  error: string | null;
  durationMs: number | null;
}

interface Delivery {
  id: string;
  verificationId: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed';
  attemptCount: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  deliveredAt: string | null;
  payload: StatusChanged;
  attempts: Attempt[];
}

interface StatusChanged {
  id: string;
  type: string;
  createdAt: string;
  data: {
    verification: { id: string; status: string; subjectExternalRef: string; sandbox: boolean };
    from: string;
    to: string;
    reason: string | null;
  };
}

interface Received {
  headers: IncomingHttpHeaders;
  /** The raw body, as a receiver must verify it (before parsing). */
  body: string;
  event: StatusChanged;
  /** What the receiver answered; null when it let the request hang. */
  answered: number | null;
}

/** How the receiver answers one request: a status, or 'hang' (never answer). */
type Answer = (event: StatusChanged) => number | 'hang';

/** A tenant's webhook endpoint on 127.0.0.1 that keeps every request; it can go down and come back. */
interface Receiver {
  readonly url: string;
  readonly received: Received[];
  answer: Answer;
  listen(): Promise<void>;
  close(): Promise<void>;
}

function createReceiver(answer: Answer = () => 200): Receiver {
  const received: Received[] = [];
  let server: Server | null = null;
  let port = 0;
  const receiver: Receiver = {
    get url() {
      return `http://127.0.0.1:${port}/hooks/kyc`;
    },
    received,
    answer,
    async listen() {
      const listening = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const event = JSON.parse(body) as StatusChanged;
          const status = receiver.answer(event);
          received.push({ headers: req.headers, body, event, answered: status === 'hang' ? null : status });
          if (status !== 'hang') res.writeHead(status).end();
        });
      });
      // Port 0 the first time; the same port again after close(), like a receiver coming back.
      await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
      port = (listening.address() as AddressInfo).port;
      server = listening;
    },
    async close() {
      const closing = server;
      server = null;
      if (!closing) return;
      closing.closeAllConnections();
      await new Promise((resolve) => closing.close(resolve));
    },
  };
  return receiver;
}

// The receivers listen on loopback, which webhook URLs may only name with KYC_WEBHOOK_ALLOW_PRIVATE.
const env = {
  KYC_WEBHOOK_TIMEOUT_MS: '2000',
  KYC_WEBHOOK_MAX_ATTEMPTS: '4',
  KYC_WEBHOOK_ALLOW_PRIVATE: 'true',
};
const slow = { timeout: 15_000 };
// Starts at the real time: staff session tokens are checked against this clock.
const clock = createManualClock(Date.now());
const nowSeconds = () => Math.floor(clock.nowMs() / 1000);

let db: TestDatabase;
let gateway: TestGateway;
const receivers: Receiver[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startKycGateway({ databaseUrl: db.url, clock, env });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all(receivers.map((r) => r.close()));
  await db?.drop();
});

async function receiverUp(answer?: Answer): Promise<Receiver> {
  const receiver = createReceiver(answer);
  receivers.push(receiver);
  await receiver.listen();
  return receiver;
}

/** A sandbox tenant subscribed to `url`, with its webhook secret and an API key. */
async function subscribedTenant(name: string, url: string | undefined) {
  const tenant = await createTenant(gateway, { name, sandbox: true, webhookUrl: url });
  const { key } = await createKey(gateway, tenant.id);
  return { secret: tenant.webhookSecret ?? '', key };
}

async function initiate(key: string, subjectExternalRef: string): Promise<string> {
  const res = await tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', {
    type: 'INDIVIDUAL_KTP',
    subjectExternalRef,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function deliveriesOf(verificationId: string): Promise<Delivery[]> {
  const out = await staff<{ deliveries: Delivery[] }>(
    gateway,
    'GET',
    `/api/v1/admin/kyc/verifications/${verificationId}/webhooks`,
  );
  return out.deliveries;
}

/** Attempts whose outcome is recorded (not in flight). */
const finished = (delivery: Delivery | undefined) =>
  delivery?.attempts.filter((a) => a.durationMs !== null) ?? [];

/** Moves the gateway's clock just past a delivery's next attempt. */
function advanceTo(delivery: Delivery | undefined): void {
  expect(delivery?.nextAttemptAt).toBeTruthy();
  clock.set(Date.parse(delivery?.nextAttemptAt as string) + 1);
}

const transitions = (received: Received[]) => received.map((r) => `${r.event.data.from}>${r.event.data.to}`);

describe('KYC webhooks', () => {
  it('delivers each status change, in order, signed with the tenant secret', async () => {
    const receiver = await receiverUp();
    const { secret, key } = await subscribedTenant('Hooks Inc', receiver.url);
    expect(secret).toMatch(/^whsec_/);
    const id = await initiate(key, 'w-1-approve');

    await expect.poll(() => receiver.received.length, slow).toBe(2);
    expect(transitions(receiver.received)).toEqual(['pending>processing', 'processing>approved']);
    for (const request of receiver.received) {
      const signature = request.headers['gatehouse-signature'] as string;
      expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifyWebhookSignature(secret, signature, request.body, nowSeconds())).toBe(true);
      expect(verifyWebhookSignature('whsec_someone-else', signature, request.body, nowSeconds())).toBe(false);
      expect(verifyWebhookSignature(secret, signature, request.body + ' ', nowSeconds())).toBe(false);
      // A captured delivery replayed after the tolerance no longer verifies.
      expect(verifyWebhookSignature(secret, signature, request.body, nowSeconds() + 301)).toBe(false);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['gatehouse-event']).toBe('verification.status_changed');
      expect(request.headers['gatehouse-delivery']).toBe(request.event.id);
    }
    expect(receiver.received[1]?.event).toMatchObject({
      type: 'verification.status_changed',
      data: {
        verification: {
          id,
          type: 'INDIVIDUAL_KTP',
          subjectExternalRef: 'w-1-approve',
          status: 'approved',
          sandbox: true,
          decisionReason: 'sandbox: reference ends in -approve',
        },
        from: 'processing',
        to: 'approved',
        reason: 'sandbox: reference ends in -approve',
      },
    });

    await expect
      .poll(async () => (await deliveriesOf(id)).map((d) => d.status), slow)
      .toEqual(['delivered', 'delivered']);
    const deliveries = await deliveriesOf(id);
    expect(deliveries.map((d) => d.id)).toEqual(receiver.received.map((r) => r.event.id));
    expect(deliveries.map((d) => d.payload)).toEqual(receiver.received.map((r) => r.event));
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ attemptCount: 1, nextAttemptAt: null, lastError: null });
      expect(delivery.attempts).toMatchObject([{ attempt: 1, httpStatus: 200, error: null }]);
    }
  });

  it('sends nothing for a tenant without a webhook URL', async () => {
    const { key } = await subscribedTenant('No Hooks Ltd', undefined);
    const id = await initiate(key, 'w-2-approve');
    await expect
      .poll(
        async () =>
          ((await (await tenantCall(gateway, key, 'GET', `/api/v1/kyc/${id}`)).json()) as { status: string })
            .status,
        slow,
      )
      .toBe('approved');
    expect(await deliveriesOf(id)).toEqual([]);
  });

  it('records failed attempts, backs off, keeps later events waiting, and delivers once the receiver answers', async () => {
    const receiver = await receiverUp(() => 500);
    const { secret, key } = await subscribedTenant('Flaky Receiver GmbH', receiver.url);
    const id = await initiate(key, 'w-3-approve');

    // Attempt 1 fails with a 500; the approval's delivery exists but waits behind it.
    await expect
      .poll(async () => (await deliveriesOf(id)).map((d) => [d.status, finished(d).length]), slow)
      .toEqual([
        ['pending', 1],
        ['pending', 0],
      ]);
    let [first, second] = await deliveriesOf(id);
    expect(first?.attempts[0]).toMatchObject({ attempt: 1, httpStatus: 500, error: 'HTTP 500' });
    expect(first?.lastError).toBe('HTTP 500');
    expect(second?.attemptCount).toBe(0);
    const firstWait =
      Date.parse(first?.nextAttemptAt as string) - Date.parse(first?.attempts[0]?.at as string);
    expect(firstWait).toBeGreaterThanOrEqual(8_000);
    expect(firstWait).toBeLessThanOrEqual(12_000);

    // Attempt 2 (clock moved past the backoff) fails too, and the next wait is longer.
    advanceTo(first);
    await expect.poll(async () => finished((await deliveriesOf(id))[0]).length, slow).toBe(2);
    [first, second] = await deliveriesOf(id);
    const secondWait =
      Date.parse(first?.nextAttemptAt as string) - Date.parse(first?.attempts[1]?.at as string);
    expect(secondWait).toBeGreaterThanOrEqual(24_000);
    expect(second?.attemptCount).toBe(0);

    // Attempt 3: the receiver accepts the connection but never answers.
    receiver.answer = () => 'hang';
    advanceTo(first);
    await expect.poll(async () => finished((await deliveriesOf(id))[0]).length, slow).toBe(3);
    [first] = await deliveriesOf(id);
    expect(first?.attempts[2]).toMatchObject({ httpStatus: null, error: 'no answer within 2000 ms' });
    expect(first?.status).toBe('pending');

    // The receiver is fixed: attempt 4 delivers, then the approval goes out.
    receiver.answer = () => 204;
    advanceTo(first);
    await expect
      .poll(async () => (await deliveriesOf(id)).map((d) => d.status), slow)
      .toEqual(['delivered', 'delivered']);
    const delivered = receiver.received.filter((r) => r.answered === 204);
    expect(transitions(delivered)).toEqual(['pending>processing', 'processing>approved']);
    expect(transitions(receiver.received)).toEqual([
      ...Array<string>(4).fill('pending>processing'),
      'processing>approved',
    ]);
    for (const request of delivered) {
      const signature = request.headers['gatehouse-signature'] as string;
      expect(verifyWebhookSignature(secret, signature, request.body, nowSeconds())).toBe(true);
    }
    [first, second] = await deliveriesOf(id);
    expect(first?.attempts.map((a) => a.httpStatus)).toEqual([500, 500, null, 204]);
    expect(first).toMatchObject({ attemptCount: 4, lastError: null, nextAttemptAt: null });
    expect(second?.attempts.map((a) => a.httpStatus)).toEqual([204]);
  });

  it('keeps undelivered events across a gateway restart and delivers each exactly once', async () => {
    // A receiver that is down: its port is known, nothing listens on it.
    const receiver = await receiverUp();
    await receiver.close();
    const { secret, key } = await subscribedTenant('Restart Bank', receiver.url);
    const id = await initiate(key, 'w-4-approve');

    await expect
      .poll(async () => (await deliveriesOf(id)).map((d) => [d.status, finished(d).length]), slow)
      .toEqual([
        ['pending', 1],
        ['pending', 0],
      ]);
    const [first] = await deliveriesOf(id);
    expect(first?.attempts[0]?.httpStatus).toBeNull();
    expect(first?.attempts[0]?.error).toMatch(/ECONNREFUSED/);

    await gateway.close();
    gateway = await startKycGateway({ databaseUrl: db.url, clock, env });
    await receiver.listen();
    advanceTo(first);

    await expect
      .poll(async () => (await deliveriesOf(id)).map((d) => d.status), slow)
      .toEqual(['delivered', 'delivered']);
    expect(transitions(receiver.received)).toEqual(['pending>processing', 'processing>approved']);
    const deliveries = await deliveriesOf(id);
    expect(receiver.received.map((r) => r.event.id)).toEqual(deliveries.map((d) => d.id));
    for (const request of receiver.received) {
      const signature = request.headers['gatehouse-signature'] as string;
      expect(verifyWebhookSignature(secret, signature, request.body, nowSeconds())).toBe(true);
    }
    const { rows } = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM kyc_webhook_deliveries WHERE verification_id = $1',
      [id],
    );
    expect(rows[0]?.n).toBe(2);
  });

  it('shares the outbox between two replicas without sending any delivery twice', async () => {
    const receiver = await receiverUp();
    const { key } = await subscribedTenant('Two Replicas SA', receiver.url);
    const replica = await startKycGateway({ databaseUrl: db.url, clock, env });
    try {
      const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => initiate(key, `w-6-${i}-approve`)));
      await expect.poll(() => receiver.received.length, slow).toBe(60);
      const perDelivery = new Map<string, number>();
      for (const r of receiver.received) perDelivery.set(r.event.id, (perDelivery.get(r.event.id) ?? 0) + 1);
      expect(perDelivery.size).toBe(60);
      expect([...perDelivery.values()].every((n) => n === 1)).toBe(true);
      for (const id of ids) {
        const mine = receiver.received.filter((r) => r.event.data.verification.id === id);
        expect(transitions(mine)).toEqual(['pending>processing', 'processing>approved']);
      }
    } finally {
      await replica.close();
    }
  });

  it('marks a delivery failed after the last attempt, lets later events through, and resends on request', async () => {
    // The processing event always fails; the approval is accepted.
    const receiver = await receiverUp((event) => (event.data.to === 'processing' ? 503 : 200));
    const { key } = await subscribedTenant('Give Up Corp', receiver.url);
    const id = await initiate(key, 'w-5-approve');

    for (let attempt = 1; attempt < 4; attempt++) {
      await expect.poll(async () => finished((await deliveriesOf(id))[0]).length, slow).toBe(attempt);
      advanceTo((await deliveriesOf(id))[0]);
    }
    await expect
      .poll(async () => (await deliveriesOf(id)).map((d) => d.status), slow)
      .toEqual(['failed', 'delivered']);
    let [first, second] = await deliveriesOf(id);
    expect(first).toMatchObject({ attemptCount: 4, nextAttemptAt: null, lastError: 'HTTP 503' });
    expect(second?.attemptCount).toBe(1);

    // The receiver is fixed; staff resend the failed delivery: same id, same bytes.
    receiver.answer = () => 200;
    const resent = await staff<Delivery>(
      gateway,
      'POST',
      `/api/v1/admin/kyc/webhooks/${first?.id}/resend`,
      undefined,
      202,
    );
    expect(resent).toMatchObject({ id: first?.id, status: 'pending' });
    await expect.poll(async () => (await deliveriesOf(id))[0]?.status, slow).toBe('delivered');
    [first, second] = await deliveriesOf(id);
    expect(first?.attempts.map((a) => a.httpStatus)).toEqual([503, 503, 503, 503, 200]);
    const copies = receiver.received.filter((r) => r.event.id === first?.id);
    expect(copies).toHaveLength(5);
    expect(new Set(copies.map((r) => r.body)).size).toBe(1);

    // A delivered one can be resent too (the receiver lost it).
    await staff(gateway, 'POST', `/api/v1/admin/kyc/webhooks/${second?.id}/resend`, undefined, 202);
    await expect
      .poll(
        () => receiver.received.filter((r) => r.event.id === second?.id && r.answered === 200).length,
        slow,
      )
      .toBe(2);
    await expect.poll(async () => (await deliveriesOf(id))[1]?.status, slow).toBe('delivered');

    const audit = await db.pool.query<{ actor: string; payload: Record<string, unknown> }>(
      `SELECT actor, payload FROM audit_log WHERE kind = 'kyc.webhook.resent' AND payload->>'verificationId' = $1
        ORDER BY id`,
      [id],
    );
    expect(audit.rows).toMatchObject([
      { actor: 'reviewer-7', payload: { deliveryId: first?.id, previousStatus: 'failed' } },
      { actor: 'reviewer-7', payload: { deliveryId: second?.id, previousStatus: 'delivered' } },
    ]);
  });

  it('answers 404 problems for an unknown delivery or verification, and 403 without kyc:admin', async () => {
    const resend = await fetch(`${gateway.url}/api/v1/admin/kyc/webhooks/${crypto.randomUUID()}/resend`, {
      method: 'POST',
      headers: await staffHeaders(),
    });
    expect(resend.status).toBe(404);
    expect(resend.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await resend.json()).toMatchObject({ code: 'kyc.webhook.not_found' });

    const list = await fetch(
      `${gateway.url}/api/v1/admin/kyc/verifications/${crypto.randomUUID()}/webhooks`,
      {
        headers: await staffHeaders(),
      },
    );
    expect(list.status).toBe(404);
    expect(await list.json()).toMatchObject({ code: 'kyc.verification.not_found' });

    const forbidden = await fetch(`${gateway.url}/api/v1/admin/kyc/webhooks/${crypto.randomUUID()}/resend`, {
      method: 'POST',
      headers: await staffHeaders(['agent']),
    });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ code: 'kyc.forbidden' });
  });
});
