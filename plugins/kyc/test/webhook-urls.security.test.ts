/**
 * Webhook URLs may only lead to public addresses (plugins/kyc/README.md, "Webhooks"): refused when a
 * tenant's URL is set (admin API and CLI), and again at every delivery after resolving the host, unless
 * the operator sets KYC_WEBHOOK_ALLOW_PRIVATE=true. A refused delivery is recorded as failed; nothing is sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import {
  createKey,
  createTenant,
  kycCli,
  staff,
  staffHeaders,
  startKycGateway,
  tenantCall,
} from '../../../test/support/kyc.ts';

let db: TestDatabase;
let gateway: TestGateway;
let receiver: Server;
let receiverPort = 0;
let received = 0;

/** A public address, written as a literal so that creating the tenant needs no DNS. */
const PUBLIC_URL = 'https://93.184.215.14/hooks/kyc';

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = createServer((req, res) => {
    received++;
    req.resume();
    res.end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
  gateway = await startKycGateway({ databaseUrl: db.url, env: { KYC_WEBHOOK_MAX_ATTEMPTS: '3' } });
});
afterAll(async () => {
  await gateway?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await db?.drop();
});

async function counts() {
  const { rows } = await db.pool.query<{ tenants: string; audits: string }>(
    "SELECT (SELECT count(*) FROM kyc_tenants) AS tenants, (SELECT count(*) FROM audit_log WHERE kind LIKE 'kyc.tenant.%') AS audits",
  );
  return rows[0];
}

const NON_PUBLIC = [
  'http://127.0.0.1:8080/hook',
  'http://localhost:8080/hook',
  'http://[::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://2130706433/hook',
  'http://0.0.0.0/hook',
  'http://10.0.0.5/hook',
  'http://172.20.1.1/hook',
  'http://192.168.0.10/hook',
  'http://100.64.0.1/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00::1]/hook',
  'http://[fe80::1]/hook',
  'http://224.0.0.1/hook',
];

describe('setting a webhook URL', () => {
  it.each(NON_PUBLIC)(
    'refuses %s on creation: 400 kyc.webhook_url.not_public, nothing written',
    async (url) => {
      const before = await counts();
      const res = await fetch(`${gateway.url}/api/v1/admin/kyc/tenants`, {
        method: 'POST',
        headers: await staffHeaders(),
        body: JSON.stringify({ name: 'Internal Co', webhookUrl: url }),
      });
      expect(res.status, await res.clone().text()).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await res.json()).toMatchObject({ code: 'kyc.webhook_url.not_public' });
      expect(await counts()).toEqual(before);
    },
  );

  it('refuses a non-public URL on update, and accepts a public one', async () => {
    const tenant = await createTenant(gateway, { name: 'Public Co', sandbox: true, webhookUrl: PUBLIC_URL });
    expect(tenant.webhookSecret).toMatch(/^whsec_/);
    const res = await fetch(`${gateway.url}/api/v1/admin/kyc/tenants/${tenant.id}`, {
      method: 'PATCH',
      headers: await staffHeaders(),
      body: JSON.stringify({ webhookUrl: 'http://169.254.169.254/' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'kyc.webhook_url.not_public' });
    const { rows } = await db.pool.query<{ url: string }>(
      'SELECT webhook_url AS url FROM kyc_tenants WHERE id = $1',
      [tenant.id],
    );
    expect(rows[0]?.url).toBe(PUBLIC_URL);
  });

  it('refuses a non-public URL from the CLI too', async () => {
    const result = await kycCli(db.url, [
      'tenant',
      'create',
      '--name',
      'Cli Co',
      '--webhook-url',
      'http://10.1.1.1/x',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('kyc.webhook_url.not_public');
  });
});

describe('delivering', () => {
  it.each([
    ['a host name that now resolves to loopback', () => `http://localhost:${receiverPort}/hooks/kyc`],
    ['a loopback address stored before this check', () => `http://127.0.0.1:${receiverPort}/hooks/kyc`],
  ])('refuses %s: the delivery fails at once and nothing is sent', async (_name, url) => {
    const tenant = await createTenant(gateway, { name: 'Rebound Co', sandbox: true, webhookUrl: PUBLIC_URL });
    // What DNS rebinding (or a row from before the check) leaves behind: the stored URL now leads inside.
    await db.pool.query('UPDATE kyc_tenants SET webhook_url = $2 WHERE id = $1', [tenant.id, url()]);
    const { key } = await createKey(gateway, tenant.id);
    const res = await tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', {
      type: 'INDIVIDUAL_KTP',
      subjectExternalRef: 'rebound-approve',
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { id: string }).id;
    type Deliveries = {
      deliveries: Array<{
        status: string;
        attempts: Array<{ error: string | null; httpStatus: number | null }>;
      }>;
    };
    const deliveries = async () =>
      (await staff<Deliveries>(gateway, 'GET', `/api/v1/admin/kyc/verifications/${id}/webhooks`)).deliveries;
    // processing, then approved: each change is one delivery, each refused on its first attempt.
    await expect
      .poll(async () => (await deliveries()).map((d) => d.status), { timeout: 15_000, interval: 100 })
      .toEqual(['failed', 'failed']);
    for (const delivery of await deliveries()) {
      expect(delivery.attempts).toEqual([
        expect.objectContaining({
          httpStatus: null,
          error: expect.stringMatching(/non-public address/) as unknown,
        }),
      ]);
    }
    expect(received).toBe(0);
  });
});
