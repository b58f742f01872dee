/** The signing example of docs/api-auth-gate.md works against a gateway in enforce mode. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatehouseFetch } from '../docs/examples/dashboard-client.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { gateEnv, INTERNAL_SECRET, mintSession } from './support/gate.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

let db: TestDatabase;
let gateway: TestGateway;
beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url, env: gateEnv('enforce') });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

describe('docs/examples/dashboard-client.ts', () => {
  it('signs GETs with a query and POSTs with a JSON body that the gate accepts', async () => {
    const credentials = { internalSecret: INTERNAL_SECRET, sessionToken: await mintSession() };
    const identity = await gatehouseFetch(gateway.url, '/api/v1/gate/identity?x=1', {}, credentials);
    expect(identity.status).toBe(200);
    expect(await identity.json()).toMatchObject({ mode: 'enforce', identity: { sub: 'user-42' } });
    const post = await gatehouseFetch(
      gateway.url,
      '/fixture/echo',
      { method: 'post', json: { name: 'Zoë', age: 30 } },
      credentials,
    );
    expect(post.status).toBe(201);
  });

  it('is refused with the wrong secret', async () => {
    const res = await gatehouseFetch(
      gateway.url,
      '/api/v1/gate/identity',
      {},
      { internalSecret: 'x'.repeat(40), sessionToken: await mintSession() },
    );
    expect(res.status).toBe(401);
  });
});
