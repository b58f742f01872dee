/**
 * Every staff route, enumerated from the booted gateway's route table (so a route added later is covered
 * without editing this file): who may call it, what it refuses, and whose records it shows. Each route must
 * have a scope probe below — an agent of cluster A aiming at cluster B's records — or this suite fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, agent, staffClient, type StaffClient } from '../../../test/support/staff-api.ts';
import {
  type RouteSummary,
  staffRoutes,
  type Seeded,
  scopeProbes,
  seedTwoClusters,
} from './staff-scope-probes.ts';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let routes: RouteSummary[];
let seeded: Seeded;
let agentA: StaffClient;

beforeAll(async () => {
  ({ db, gateway, stop } = await startStaffApiHarness());
  routes = staffRoutes(gateway.routes);
  seeded = await seedTwoClusters(db.pool);
  agentA = staffClient(gateway, agent(seeded.agentA));
}, 60_000);
afterAll(() => stop?.());

/** `METHOD pattern` of a route, one per method. */
function targets(): Array<{ key: string; method: string; pattern: string; route: RouteSummary }> {
  return routes.flatMap((route) =>
    route.methods
      .filter((method) => method !== 'HEAD')
      .map((method) => ({ key: `${method} ${route.pattern}`, method, pattern: route.pattern, route })),
  );
}

/** The pattern with each `:param` replaced. */
function fill(pattern: string, value: (name: string) => string): string {
  return pattern.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(value(name)));
}

/** Table name → row count, for "nothing written". */
async function counts(): Promise<Record<string, number>> {
  const { rows } = await db.pool.query<{ name: string; n: number }>(
    `SELECT relname AS name, n_live_tup::int AS n FROM pg_stat_user_tables WHERE relname LIKE 'messaging_%'`,
  );
  const exact: Record<string, number> = {};
  for (const { name } of rows) {
    const { rows: counted } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`);
    exact[name] = counted[0]?.n ?? 0;
  }
  return exact;
}

async function expectProblem(res: Response, statuses: readonly number[] = []): Promise<string> {
  const text = await res.text();
  expect(res.status, text).toBeGreaterThanOrEqual(400);
  expect(res.status, text).toBeLessThan(500);
  if (statuses.length > 0) expect(statuses, text).toContain(res.status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as { code?: unknown; requestId?: unknown };
  expect(typeof body.code).toBe('string');
  expect(typeof body.requestId).toBe('string');
  return body.code as string;
}

describe('the staff routes', () => {
  it('are all gated, and there are some', () => {
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) expect(route.exempt, route.pattern).toBe(false);
  });

  it('each has a scope probe', () => {
    const missing = targets()
      .map((t) => t.key)
      .filter((key) => !(key in scopeProbes));
    expect(missing).toEqual([]);
  });

  it('refuse a caller without credentials with 401, whatever the route', async () => {
    for (const { method, pattern } of targets()) {
      const path = fill(pattern, () => seeded.conversationB);
      const res = await fetch(`${gateway.url}${path}`, { method });
      expect(await expectProblem(res, [401]), `${method} ${pattern}`).toBe('api.auth.unauthenticated');
    }
  });

  it('never show or change cluster B to an agent of cluster A (and show it to an admin)', async () => {
    const admin = staffClient(gateway, ADMIN);
    for (const { key } of targets()) {
      const probe = scopeProbes[key];
      if (!probe) continue;
      const before = await counts();
      await probe.agent(agentA, seeded, key);
      expect(await counts(), `${key} wrote for an agent outside the scope`).toEqual(before);
      await probe.admin?.(admin, seeded, key);
    }
  });
});

describe('bad input on every staff route', () => {
  it('a malformed id in the path is a 4xx problem, and writes nothing', async () => {
    const admin = staffClient(gateway, ADMIN);
    const before = await counts();
    for (const { key, method, pattern } of targets().filter((t) => t.pattern.includes(':'))) {
      for (const bad of [
        'not-a-uuid',
        '00000000-0000-0000-0000-00000000000g',
        "1' OR '1'='1",
        'x'.repeat(400),
      ]) {
        const res = await admin[verb(method)](
          fill(pattern, () => bad),
          bodyFor(method),
        );
        await expectProblem(res).catch((err: Error) => {
          throw new Error(`${key} with id ${bad.slice(0, 40)}: ${err.message}`);
        });
      }
    }
    expect(await counts()).toEqual(before);
  });

  it('an unknown query parameter, or a cursor it did not hand out, is a 4xx problem where the route reads a query', async () => {
    const admin = staffClient(gateway, ADMIN);
    for (const { key, pattern, route } of targets().filter((t) => t.method === 'GET')) {
      const path = fill(pattern, () => seeded.conversationB);
      for (const query of [
        'zz=1',
        'cursor=not-a-cursor',
        'cursor=eyJrIjoieCJ9',
        `limit=100000`,
        'limit=-1',
      ]) {
        const res = await admin.get(`${path}?${query}`);
        // A route that reads no query ignores one, as it ignores any header it does not read.
        if (!route.schema?.query) {
          expect(res.status, `${key}?${query}`).toBeLessThan(500);
          continue;
        }
        await expectProblem(res).catch((err: Error) => {
          throw new Error(`${key}?${query}: ${err.message}`);
        });
      }
    }
  });

  it('bodies of the wrong shape, with unstorable text or nested too deep are 4xx problems, and write nothing', async () => {
    const admin = staffClient(gateway, ADMIN);
    const bodies = [
      '[]',
      '"text"',
      'null',
      '{"name":',
      '{"text":"\\u0000","name":"\\u0000","email":"\\u0000"}',
      '{"text":"\\ud800","name":"\\udc00 x","notes":"\\ud800"}',
      '{"unknownField":1}',
      `${'{"a":'.repeat(200)}1${'}'.repeat(200)}`,
    ];
    const before = await counts();
    for (const { key, method, pattern } of targets().filter((t) => t.route.schema?.body)) {
      const path = fill(pattern, (name) => seeded.paramsB[name] ?? seeded.conversationB);
      for (const raw of bodies) {
        const res = await admin[verb(method)](path, { raw, headers: ifMatchAny() });
        await expectProblem(res).catch((err: Error) => {
          throw new Error(`${key} with ${raw.slice(0, 60)}: ${err.message}`);
        });
      }
    }
    expect(await counts()).toEqual(before);
  });
});

function verb(method: string): 'get' | 'post' | 'put' | 'patch' | 'delete' {
  return method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
}

function bodyFor(method: string) {
  return method === 'GET' || method === 'DELETE' ? undefined : { json: {} };
}

/** Lets a body reach the schema on routes that check If-Match first. */
function ifMatchAny(): Record<string, string> {
  return { 'if-match': '"stale"' };
}
