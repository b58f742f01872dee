/**
 * Bad input on every inbox route (plugins/messaging/README.md, "Staff API", "Agent inbox", and "Error
 * codes"): a 4xx application/problem+json with a stable code and the request id, never a 5xx, and nothing
 * written.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { messagingRows } from '../../../test/support/realtime.ts';
import { agent, staffClient, type StaffClient, type StaffRequest } from '../../../test/support/staff-api.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let client: StaffClient;
let conversation: string;

beforeAll(async () => {
  ({ db, gateway, stop } = await startStaffApiHarness());
  const cluster = await messagingRows.cluster(db.pool, ['agent-v']);
  conversation = await messagingRows.conversation(db.pool, cluster);
  await messagingRows.message(db.pool, conversation, 'halo');
  client = staffClient(gateway, agent('agent-v'));
});
afterAll(() => stop?.());

/** A cursor as the API encodes one, with any kind and position (a client tampering with it). */
const forged = (k: string, p: unknown) => Buffer.from(JSON.stringify({ k, p }), 'utf8').toString('base64url');

const C = () => `/api/v1/agent/conversations/${conversation}`;
const LIST = '/api/v1/agent/conversations';

type Case = [name: string, method: 'GET' | 'POST', path: () => string, request: StaffRequest, code: string];

const CASES: Case[] = [
  ['me: unknown query parameter', 'GET', () => '/api/v1/agent/me?x=1', {}, 'validation.failed'],
  ['list: unknown status', 'GET', () => `${LIST}?status=closed`, {}, 'validation.failed'],
  ['list: status twice', 'GET', () => `${LIST}?status=open&status=pending`, {}, 'validation.failed'],
  ['list: unknown assigned', 'GET', () => `${LIST}?assigned=agent-v`, {}, 'validation.failed'],
  ['list: cluster not a uuid', 'GET', () => `${LIST}?cluster=admissions`, {}, 'validation.failed'],
  ['list: unread not a boolean', 'GET', () => `${LIST}?unread=yes`, {}, 'validation.failed'],
  ['list: limit 0', 'GET', () => `${LIST}?limit=0`, {}, 'validation.failed'],
  ['list: limit 101', 'GET', () => `${LIST}?limit=101`, {}, 'validation.failed'],
  ['list: limit not an integer', 'GET', () => `${LIST}?limit=2.5`, {}, 'validation.failed'],
  ['list: limit negative', 'GET', () => `${LIST}?limit=-1`, {}, 'validation.failed'],
  ['list: empty search', 'GET', () => `${LIST}?q=%20`, {}, 'validation.failed'],
  ['list: search too long', 'GET', () => `${LIST}?q=${'a'.repeat(201)}`, {}, 'validation.failed'],
  ['list: NUL in the search', 'GET', () => `${LIST}?q=a%00b`, {}, 'request.invalid_text'],
  ['list: unknown parameter', 'GET', () => `${LIST}?sort=oldest`, {}, 'validation.failed'],
  ['list: cursor not base64url', 'GET', () => `${LIST}?cursor=!!`, {}, 'messaging.cursor.invalid'],
  ['list: cursor too long', 'GET', () => `${LIST}?cursor=${'A'.repeat(1025)}`, {}, 'validation.failed'],
  [
    'list: a messages cursor',
    'GET',
    () => `${LIST}?cursor=${forged('messages', { c: conversation, s: 1 })}`,
    {},
    'messaging.cursor.invalid',
  ],
  [
    'list: cursor with a position out of range',
    'GET',
    () => `${LIST}?cursor=${forged('inbox', { us: 1e300, id: conversation })}`,
    {},
    'messaging.cursor.invalid',
  ],
  [
    'list: cursor with a bad id',
    'GET',
    () => `${LIST}?cursor=${forged('inbox', { us: 1, id: "'; DROP TABLE x; --" })}`,
    {},
    'messaging.cursor.invalid',
  ],
  ['detail: id not a uuid', 'GET', () => `${LIST}/123`, {}, 'validation.failed'],
  ['detail: unknown query parameter', 'GET', () => `${C()}?messages=all`, {}, 'validation.failed'],
  ['messages: before and after', 'GET', () => `${C()}/messages?before=a&after=b`, {}, 'validation.failed'],
  ['messages: limit 1000', 'GET', () => `${C()}/messages?limit=1000`, {}, 'validation.failed'],
  ['messages: cursor not one', 'GET', () => `${C()}/messages?before=xyz`, {}, 'messaging.cursor.invalid'],
  [
    'messages: an inbox cursor',
    'GET',
    () => `${C()}/messages?after=${forged('inbox', { us: 1, id: conversation })}`,
    {},
    'messaging.cursor.invalid',
  ],
  [
    'messages: negative position',
    'GET',
    () => `${C()}/messages?after=${forged('messages', { c: conversation, s: -5 })}`,
    {},
    'messaging.cursor.invalid',
  ],
  [
    'messages: position beyond a safe integer',
    'GET',
    () => `${C()}/messages?after=${forged('messages', { c: conversation, s: 2 ** 64 })}`,
    {},
    'messaging.cursor.invalid',
  ],
  ['read: id not a uuid', 'POST', () => `${LIST}/zzz/read`, {}, 'validation.failed'],
  ['read: a body with fields', 'POST', () => `${C()}/read`, { json: { all: true } }, 'validation.failed'],
  ['resolve: body not JSON', 'POST', () => `${C()}/resolve`, { raw: '{"a":' }, 'request.malformed_json'],
  ['reopen: body a list', 'POST', () => `${C()}/reopen`, { json: [] }, 'validation.failed'],
  ['handback: unknown query parameter', 'POST', () => `${C()}/handback?now=1`, {}, 'validation.failed'],
  ['unassign: id not a uuid', 'POST', () => `${LIST}/${'f'.repeat(36)}/unassign`, {}, 'validation.failed'],
  ['assign: no body', 'POST', () => `${C()}/assign`, {}, 'validation.failed'],
  ['assign: userId missing', 'POST', () => `${C()}/assign`, { json: {} }, 'validation.failed'],
  ['assign: userId empty', 'POST', () => `${C()}/assign`, { json: { userId: '' } }, 'validation.failed'],
  [
    'assign: userId too long',
    'POST',
    () => `${C()}/assign`,
    { json: { userId: 'u'.repeat(201) } },
    'validation.failed',
  ],
  ['assign: userId a number', 'POST', () => `${C()}/assign`, { json: { userId: 7 } }, 'validation.failed'],
  [
    'assign: extra field',
    'POST',
    () => `${C()}/assign`,
    { json: { userId: 'agent-v', take: true } },
    'validation.failed',
  ],
  ['reply: no body', 'POST', () => `${C()}/replies`, {}, 'validation.failed'],
  ['reply: text empty', 'POST', () => `${C()}/replies`, { json: { text: '' } }, 'validation.failed'],
  ['reply: text blank', 'POST', () => `${C()}/replies`, { json: { text: ' \n\t ' } }, 'validation.failed'],
  [
    'reply: text too long',
    'POST',
    () => `${C()}/replies`,
    { json: { text: 'x'.repeat(4097) } },
    'validation.failed',
  ],
  [
    'reply: text not a string',
    'POST',
    () => `${C()}/replies`,
    { json: { text: ['a'] } },
    'validation.failed',
  ],
  [
    'reply: extra field',
    'POST',
    () => `${C()}/replies`,
    { json: { text: 'a', template: 'x' } },
    'validation.failed',
  ],
  [
    'reply: NUL in the text',
    'POST',
    () => `${C()}/replies`,
    { json: { text: 'a\u0000b' } },
    'request.invalid_text',
  ],
  [
    'reply: lone surrogate in the text',
    'POST',
    () => `${C()}/replies`,
    { raw: '{"text":"a\\ud800b"}' },
    'request.invalid_text',
  ],
  [
    'reply: Idempotency-Key with a space',
    'POST',
    () => `${C()}/replies`,
    { json: { text: 'a' }, headers: { 'idempotency-key': 'two words' } },
    'messaging.idempotency_key.invalid',
  ],
  [
    'reply: Idempotency-Key too long',
    'POST',
    () => `${C()}/replies`,
    { json: { text: 'a' }, headers: { 'idempotency-key': 'k'.repeat(256) } },
    'messaging.idempotency_key.invalid',
  ],
  [
    'reply: Idempotency-Key empty',
    'POST',
    () => `${C()}/replies`,
    { json: { text: 'a' }, headers: { 'idempotency-key': '' } },
    'messaging.idempotency_key.invalid',
  ],
  [
    'reply: Idempotency-Key not ASCII',
    'POST',
    () => `${C()}/replies`,
    { json: { text: 'a' }, headers: { 'idempotency-key': 'kl\u00e9' } },
    'messaging.idempotency_key.invalid',
  ],
];

/** What any of the requests could have written. */
async function state() {
  const { rows } = await db.pool.query<{ conversations: string; messages: string; keys: string }>(
    `SELECT (SELECT md5(string_agg(c::text, ',' ORDER BY c.id)) FROM messaging_conversations c) AS conversations,
            (SELECT count(*) FROM messaging_messages)::text AS messages,
            (SELECT count(*) FROM messaging_reply_requests)::text AS keys`,
  );
  return rows[0];
}

it.each(CASES)('%s → 4xx problem+json, nothing written', async (_name, method, path, request, code) => {
  const before = await state();
  const res = await (method === 'GET' ? client.get(path(), request) : client.post(path(), request));
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as { code: string; requestId: string; status: number };
  expect(body).toMatchObject({ code, status: res.status });
  expect(typeof body.requestId).toBe('string');
  expect(await state()).toEqual(before);
});

it('validation names the field', async () => {
  const res = await client.post(`${C()}/replies`, { json: { text: 'x'.repeat(4097) } });
  expect(((await res.json()) as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toEqual([
    'body.text',
  ]);
});
