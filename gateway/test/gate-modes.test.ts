/**
 * The API_AUTH_MODE matrix (docs/api-auth-gate.md, "Modes"): for each mode × {no headers, bad HMAC, stale
 * timestamp, good HMAC + bad session, expired session, both good}: status, audit rows (count and kind) and
 * metric increments. Real gateway, real Postgres, real Auth.js tokens; time moves by an injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../src/clock.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { decisions, delta, gateEnv, mintSession, sign } from '../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';
import { SESSION_HEADER } from '../src/gate/gate.ts';
import { SIGNATURE_HEADER } from '../src/gate/hmac.ts';
import { GATE_METRIC_NAMES } from '../src/gate/gate-metrics.ts';

type Mode = 'disabled' | 'warn' | 'enforce';
type Case =
  'no headers' | 'bad HMAC' | 'stale timestamp' | 'good HMAC + bad session' | 'expired session' | 'both good';

const URL_PATH = '/api/v1/gate/identity?view=full';

/** What each case sends; `clock` is the gateway's clock (the token expiry case moves it). */
async function headersFor(kind: Case, clock: ManualClock): Promise<Record<string, string>> {
  const now = Math.floor(clock.nowMs() / 1000);
  const good = sign({ method: 'GET', url: URL_PATH, at: now });
  switch (kind) {
    case 'no headers':
      return {};
    case 'bad HMAC':
      return {
        [SIGNATURE_HEADER]: sign({
          method: 'GET',
          url: URL_PATH,
          at: now,
          secret: 'an-attacker-guessed-secret-0123456789',
        }),
        [SESSION_HEADER]: await mintSession(),
      };
    case 'stale timestamp':
      return {
        [SIGNATURE_HEADER]: sign({ method: 'GET', url: URL_PATH, at: now - 301 }),
        [SESSION_HEADER]: await mintSession(),
      };
    case 'good HMAC + bad session':
      return {
        [SIGNATURE_HEADER]: good,
        [SESSION_HEADER]: await mintSession({ secret: 'not-the-dashboard-secret' }),
      };
    case 'expired session':
      // Minted valid for 60 s of real time; the gateway's clock is five minutes ahead.
      return { [SIGNATURE_HEADER]: good, [SESSION_HEADER]: await mintSession({ maxAge: 60 }) };
    case 'both good':
      return { [SIGNATURE_HEADER]: good, [SESSION_HEADER]: await mintSession() };
  }
}

interface Expected {
  status: number;
  audit: Array<[kind: string, reason: string]>;
  metrics: Record<string, number>;
}

const EXPECTED: Record<Mode, Record<Case, Expected>> = {
  disabled: {
    'no headers': { status: 200, audit: [], metrics: { 'hmac skipped': 1, 'session skipped': 1 } },
    'bad HMAC': { status: 200, audit: [], metrics: { 'hmac skipped': 1, 'session skipped': 1 } },
    'stale timestamp': { status: 200, audit: [], metrics: { 'hmac skipped': 1, 'session skipped': 1 } },
    'good HMAC + bad session': {
      status: 200,
      audit: [],
      metrics: { 'hmac skipped': 1, 'session skipped': 1 },
    },
    'expired session': { status: 200, audit: [], metrics: { 'hmac skipped': 1, 'session skipped': 1 } },
    'both good': { status: 200, audit: [], metrics: { 'hmac skipped': 1, 'session skipped': 1 } },
  },
  warn: {
    'no headers': {
      status: 200,
      audit: [
        ['api.auth.hmac_failed', 'missing'],
        ['api.auth.session_failed', 'missing'],
      ],
      metrics: { 'hmac would_deny': 1, 'session would_deny': 1 },
    },
    'bad HMAC': {
      status: 200,
      audit: [['api.auth.hmac_failed', 'mismatch']],
      metrics: { 'hmac would_deny': 1, 'session pass': 1 },
    },
    'stale timestamp': {
      status: 200,
      audit: [['api.auth.hmac_failed', 'stale']],
      metrics: { 'hmac would_deny': 1, 'session pass': 1 },
    },
    'good HMAC + bad session': {
      status: 200,
      audit: [['api.auth.session_failed', 'invalid']],
      metrics: { 'hmac pass': 1, 'session would_deny': 1 },
    },
    'expired session': {
      status: 200,
      audit: [['api.auth.session_failed', 'expired']],
      metrics: { 'hmac pass': 1, 'session would_deny': 1 },
    },
    'both good': { status: 200, audit: [], metrics: { 'hmac pass': 1, 'session pass': 1 } },
  },
  enforce: {
    // Layer 1 refuses first; layer 2 is not consulted.
    'no headers': { status: 401, audit: [['api.auth.hmac_failed', 'missing']], metrics: { 'hmac fail': 1 } },
    'bad HMAC': { status: 401, audit: [['api.auth.hmac_failed', 'mismatch']], metrics: { 'hmac fail': 1 } },
    'stale timestamp': {
      status: 401,
      audit: [['api.auth.hmac_failed', 'stale']],
      metrics: { 'hmac fail': 1 },
    },
    'good HMAC + bad session': {
      status: 401,
      audit: [['api.auth.session_failed', 'invalid']],
      metrics: { 'hmac pass': 1, 'session fail': 1 },
    },
    'expired session': {
      status: 401,
      audit: [['api.auth.session_failed', 'expired']],
      metrics: { 'hmac pass': 1, 'session fail': 1 },
    },
    'both good': { status: 200, audit: [], metrics: { 'hmac pass': 1, 'session pass': 1 } },
  },
};

const CASES = Object.keys(EXPECTED.warn) as Case[];

describe.each(['disabled', 'warn', 'enforce'] as const)('API_AUTH_MODE=%s', (mode) => {
  let db: TestDatabase;
  let gateway: TestGateway;
  // Five minutes ahead of real time: a token Auth.js minted "now" for 60 s has expired (past the 15 s
  // tolerance) on the gateway's clock, one minted for an hour has not.
  const clock = createManualClock(Date.now() + 300_000);

  beforeAll(async () => {
    db = await createTestDatabase();
    gateway = await startTestGateway({ databaseUrl: db.url, env: gateEnv(mode), clock });
  });
  afterAll(async () => {
    await gateway?.close();
    await db?.drop();
  });

  it.each(CASES)('%s', async (kind) => {
    const expected = EXPECTED[mode][kind];
    const requestId = `${mode}-${kind.replace(/\W+/g, '-')}`;
    const before = await decisions(gateway.metricsUrl);
    const res = await fetch(`${gateway.url}${URL_PATH}`, {
      headers: { 'x-request-id': requestId, ...(await headersFor(kind, clock)) },
    });
    expect(res.status).toBe(expected.status);
    if (expected.status === 401) {
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ code: 'api.auth.unauthenticated', status: 401, requestId });
      // The client is never told which check failed or why.
      const { requestId: _omitted, ...rest } = body;
      expect(JSON.stringify(rest)).not.toMatch(/hmac|session|stale|expired|mismatch|missing|signature/i);
    }
    await gateway.audit.flush();
    const { rows } = await db.pool.query<{
      kind: string;
      reason: string;
      mode: string;
      route: string;
      method: string;
    }>(
      `SELECT kind, payload->>'reason' AS reason, payload->>'mode' AS mode, payload->>'route' AS route, payload->>'method' AS method
         FROM audit_log WHERE request_id = $1 ORDER BY kind`,
      [requestId],
    );
    expect(rows.map((row) => [row.kind, row.reason])).toEqual(expected.audit);
    for (const row of rows)
      expect(row).toMatchObject({ mode, route: '/api/v1/gate/identity', method: 'GET' });
    expect(delta(await decisions(gateway.metricsUrl), before)).toEqual(expected.metrics);
  });

  it('exposes the verified identity to handlers only when layer 2 passed', async () => {
    const res = await fetch(`${gateway.url}${URL_PATH}`, { headers: await headersFor('both good', clock) });
    const body = (await res.json()) as { mode: string; identity: unknown };
    expect(body.mode).toBe(mode);
    expect(body.identity).toEqual(
      mode === 'disabled'
        ? null
        : { sub: 'user-42', email: 'ada@example.com', roles: ['agent'], sid: 'sid-1' },
    );
  });

  it('plugins see the mode in ctx.gate', async () => {
    const res = await fetch(`${gateway.url}/fixture/gate`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ mode });
  });

  it('exempt routes answer the same, with no audit rows and no gate metrics', async () => {
    const before = await decisions(gateway.metricsUrl);
    for (const path of ['/', '/health']) {
      const res = await fetch(`${gateway.url}${path}`, {
        headers: { 'x-request-id': `exempt-${mode}${path}`, [SIGNATURE_HEADER]: 't=1,v1=00' },
      });
      expect(res.status).toBe(200);
    }
    await gateway.audit.flush();
    const { rows } = await db.pool.query("SELECT 1 FROM audit_log WHERE request_id LIKE 'exempt-%'");
    expect(rows).toHaveLength(0);
    expect(delta(await decisions(gateway.metricsUrl), before)).toEqual({});
  });

  it('publishes gatehouse_auth_mode_info and the gate latency histogram', async () => {
    const text = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
    expect(text).toContain(`${GATE_METRIC_NAMES.modeInfo}{mode="${mode}"} 1`);
    expect(text).toMatch(new RegExp(`^${GATE_METRIC_NAMES.duration}_count \\d+$`, 'm'));
  });

  it('disabled writes no audit row at all; the others only gate rows', async () => {
    await gateway.audit.flush();
    const { rows } = await db.pool.query<{ kind: string }>(
      'SELECT DISTINCT kind FROM audit_log ORDER BY kind',
    );
    expect(rows.map((row) => row.kind)).toEqual(
      mode === 'disabled' ? [] : ['api.auth.hmac_failed', 'api.auth.session_failed'],
    );
  });
});
