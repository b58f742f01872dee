/**
 * The lead status rule is written twice: `leadStatus` decides escalations before anything is written, and
 * the SQL function `messaging_lead_status` recomputes `status` in every write (migrations/messaging/
 * 0002_staff_api.sql). They must agree on every combination of known and missing fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { type LeadContact, leadStatus } from './lead.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe('leadStatus and messaging_lead_status', () => {
  it('agree on all eight combinations of a known or missing name, email and phone', async () => {
    const contacts: LeadContact[] = [];
    for (const name of [null, 'Budi Santoso'])
      for (const email of [null, 'budi@example.com'])
        for (const phone of [null, '6281234567890']) contacts.push({ name, email, phone });
    const { rows } = await db.pool.query<{ status: string }>(
      `SELECT messaging_lead_status(c.name, c.email, c.phone) AS status
         FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS c(name, email, phone, n)
        ORDER BY c.n`,
      [contacts.map((c) => c.name), contacts.map((c) => c.email), contacts.map((c) => c.phone)],
    );
    const inSql = rows.map((row) => row.status);
    expect(inSql).toEqual(contacts.map(leadStatus));
    // And the rule itself, so that agreeing on a wrong rule fails too.
    expect(inSql).toEqual([
      'incomplete',
      'incomplete',
      'incomplete',
      'incomplete',
      'incomplete',
      'incomplete',
      'captured',
      'qualified',
    ]);
  });
});
