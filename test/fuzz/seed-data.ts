/**
 * Rows for the fuzz suite to aim at, created through the gateway's own API before fuzzing: a KYC tenant with
 * an API key for the caller (kept out of the fuzzed ids, so no fuzzed request revokes the suite's own
 * key), another tenant with its key, verifications in several states with webhook deliveries, a second
 * user, a SCIM user in a SCIM group and a messaging conversation. Path parameters and id fields then hit rows that exist.
 */
import argon2 from 'argon2';
import type pg from 'pg';
import { ARGON2_PARAMS } from '../../plugins/auth/src/service/password-hasher.ts';
import { userStore } from '../../plugins/auth/src/store/user-store.ts';
import { textMessage } from '../support/whatsapp.ts';
import type { Caller } from './credentials.ts';
import type { HttpClient } from './raw-http.ts';
import { rowCounter, rowsSettled } from './row-counts.ts';
import { canonical } from '../support/accounts.ts';

export interface SeededData {
  /** The caller's KYC API key. */
  apiKey: string;
  /** Every uuid in the database once seeded. */
  ids: string[];
  /** The ids of each table's rows (tables with a uuid `id`). */
  rowIds: Record<string, string[]>;
  /** Ids the suite's own credentials depend on (its tenant and key). */
  protectedIds: string[];
}

export async function seedData(deps: {
  client: HttpClient;
  caller: Caller;
  pool: pg.Pool;
  sinkUrl: string;
}): Promise<SeededData> {
  const call = async (method: string, path: string, body?: unknown) => {
    const raw = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = raw ? { 'content-type': 'application/json' } : {};
    const request = {
      method,
      path,
      headers,
      ...(raw ? { body: { plain: raw, sent: raw, headers: {}, description: '' } } : {}),
    };
    const res = await deps.client.send(await deps.caller.withCredentials(request));
    if (res.status >= 300) throw new Error(`seeding: ${method} ${path} answered ${res.status}: ${res.text}`);
    return JSON.parse(res.text || 'null') as Record<string, string>;
  };
  const tenant = async (name: string) => {
    const created = await call('POST', '/api/v1/admin/kyc/tenants', {
      name,
      sandbox: true,
      webhookUrl: `${deps.sinkUrl}/${name}`,
    });
    const key = await call('POST', `/api/v1/admin/kyc/tenants/${created.id}/keys`, { label: name });
    return { id: created.id as string, keyId: key.id as string, key: key.key as string };
  };

  const own = await tenant('fuzz-caller');
  const other = await tenant('fuzz-other');
  deps.caller.useApiKey(own.key);
  for (const ref of ['seed-1-approve', 'seed-2-review', 'seed-3']) {
    await call('POST', '/api/v1/kyc/initiate', { type: 'INDIVIDUAL_KTP', subjectExternalRef: ref });
  }
  deps.caller.useApiKey(other.key);
  await call('POST', '/api/v1/kyc/initiate', { type: 'INDIVIDUAL_KTP', subjectExternalRef: 'seed-4-reject' });
  deps.caller.useApiKey(own.key);
  await userStore.insertLocal(
    deps.pool,
    canonical('fuzz-user@example.com'),
    await argon2.hash('fuzz user password 1', ARGON2_PARAMS),
  );
  // A SCIM user in a SCIM group, so the SCIM routes' ids hit rows that exist.
  const scimUser = await call('POST', '/api/v1/scim/v2/Users', {
    userName: 'fuzz-scim@example.com',
    emails: [{ value: 'fuzz-scim@example.com', type: 'work', primary: true }],
  });
  await call('POST', '/api/v1/scim/v2/Groups', {
    displayName: 'fuzz-group',
    members: [{ value: scimUser.id }],
  });
  await call(
    'POST',
    '/webhook/chat',
    textMessage({ from: '6281234567890', text: 'hello, I want to buy', id: 'wamid.seed.1' }),
  );
  // Background work (verifications, webhooks, the message) must stop changing row counts first.
  await rowsSettled(await rowCounter(deps.pool), 'seeded rows to settle', 4);
  await seedStaffRows(call, deps.pool);
  const { ids, rowIds } = await everyUuid(deps.pool);
  return { apiKey: own.key, ids, rowIds, protectedIds: [own.id, own.keyId] };
}

/**
 * The staff API's records beside the conversation the webhook made: a lead created by hand, and feedback on
 * the bot's reply, so lead and feedback routes are fuzzed against rows that exist.
 */
async function seedStaffRows(
  call: (method: string, path: string, body?: unknown) => Promise<Record<string, string>>,
  pool: pg.Pool,
): Promise<void> {
  await call('POST', '/api/v1/leads', { name: 'Seed Lead', email: 'seed.lead@example.com' });
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM messaging_messages WHERE direction = 'outbound' AND author_user_id IS NULL LIMIT 1`,
  );
  const reply = rows[0]?.id;
  if (!reply) throw new Error('seeding: the seeded message got no bot reply');
  await call('PUT', `/api/v1/messages/${reply}/feedback`, { rating: 'down', correctIntent: 'wantRegister' });
}

async function everyUuid(pool: pg.Pool): Promise<Pick<SeededData, 'ids' | 'rowIds'>> {
  const { rows: columns } = await pool.query<{ table: string; column: string }>(
    `SELECT table_name AS table, column_name AS column FROM information_schema.columns
      WHERE table_schema = 'public' AND data_type = 'uuid'`,
  );
  const ids = new Set<string>();
  const rowIds: Record<string, string[]> = {};
  for (const { table, column } of columns) {
    const { rows } = await pool.query<{ id: string }>(
      `SELECT DISTINCT "${column}"::text AS id FROM "${table}" WHERE "${column}" IS NOT NULL LIMIT 20`,
    );
    for (const row of rows) ids.add(row.id);
    if (column === 'id') rowIds[table] = rows.map((row) => row.id).sort();
  }
  return { ids: [...ids].sort(), rowIds };
}
