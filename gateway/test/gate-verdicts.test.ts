/**
 * One verdict per gated request (gatehouse_auth_gate_requests_total{mode,outcome}): what the operator's
 * rollout analysis divides, so a request failing both layers in warn counts once, not twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { gateEnv, gateHeaders, mintSession } from '../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';
import { SESSION_HEADER } from '../src/gate/gate.ts';
import { GATE_METRIC_NAMES } from '../src/gate/gate-metrics.ts';

const GATED = '/api/v1/gate/identity';
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

async function verdicts(gateway: TestGateway): Promise<Record<string, number>> {
  const text = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const match of text.matchAll(
    new RegExp(`^${GATE_METRIC_NAMES.requests}\\{mode="(\\w+)",outcome="(\\w+)"\\} (\\d+)$`, 'gm'),
  )) {
    out[`${match[1]} ${match[2]}`] = Number(match[3]);
  }
  return out;
}

describe.each(['warn', 'enforce'] as const)('verdicts in %s', (mode) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ databaseUrl: db.url, env: gateEnv(mode) });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('exist at 0 before any request, then count each gated request once', async () => {
    expect(await verdicts(gateway)).toEqual({
      [`${mode} pass`]: 0,
      [`${mode} fail`]: 0,
      [`${mode} would_deny`]: 0,
    });
    // Both layers valid; no headers (both layers fail); a good signature with a bad session (layer 2 fails).
    await fetch(gateway.url + GATED, { headers: await gateHeaders('GET', GATED) });
    await fetch(gateway.url + GATED);
    const headers = await gateHeaders('GET', GATED);
    await fetch(gateway.url + GATED, {
      headers: {
        ...headers,
        [SESSION_HEADER]: await mintSession({ secret: 'another-secret-entirely-0123456789' }),
      },
    });
    expect(await verdicts(gateway)).toEqual({
      [`${mode} pass`]: 1,
      [`${mode} fail`]: mode === 'enforce' ? 2 : 0,
      [`${mode} would_deny`]: mode === 'warn' ? 2 : 0,
    });
  });
});
