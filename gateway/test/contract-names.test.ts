/**
 * The names other processes rely on are each one exported constant, which the code and the suites use: the gate's
 * two request headers (dashboards sign and forward them), the request id header (clients quote it in reports), the gate's metrics (the operator's rollout analysis,
 * dashboards and alerts query them) and the core's own metrics. Since every other test reads the constants, this
 * file is what holds them to the names the documentation promises: a renamed constant fails here, not in a
 * dashboard or a rollout.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/support/process.ts';
import { SESSION_HEADER } from '../src/gate/gate.ts';
import { GATE_METRIC_NAMES } from '../src/gate/gate-metrics.ts';
import { SIGNATURE_HEADER } from '../src/gate/hmac.ts';
import { HTTP_DURATION_METRIC } from '../src/http/http-metrics.ts';
import { DROPPED_LOG_LINES_METRIC } from '../src/http/registry.ts';
import { REQUEST_ID_HEADER } from '../src/http/request-state.ts';

const GATE_DOC = readFileSync(path.join(REPO_ROOT, 'docs/api-auth-gate.md'), 'utf8');

describe('names other processes rely on', () => {
  it('the gate headers are the documented ones', () => {
    expect({ SIGNATURE_HEADER, SESSION_HEADER }).toEqual({
      SIGNATURE_HEADER: 'x-internal-signature',
      SESSION_HEADER: 'x-forwarded-session',
    });
    const documented = GATE_DOC.toLowerCase();
    expect(documented).toContain(`${SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex hmac-sha256(`);
    expect(documented).toContain(`${SESSION_HEADER}: <the user's auth.js session token`);
  });

  it('the request id header is the documented one', () => {
    expect(REQUEST_ID_HEADER).toBe('X-Request-Id');
    expect(readFileSync(path.join(REPO_ROOT, 'docs/errors.md'), 'utf8')).toContain(REQUEST_ID_HEADER);
  });

  it('the metric names are the documented ones', () => {
    expect({ ...GATE_METRIC_NAMES, HTTP_DURATION_METRIC, DROPPED_LOG_LINES_METRIC }).toEqual({
      decisions: 'gatehouse_auth_gate_decisions_total',
      modeInfo: 'gatehouse_auth_mode_info',
      duration: 'gatehouse_auth_gate_duration_seconds',
      requests: 'gatehouse_auth_gate_requests_total',
      HTTP_DURATION_METRIC: 'http_request_duration_seconds',
      DROPPED_LOG_LINES_METRIC: 'gatehouse_log_dropped_lines_total',
    });
    for (const name of [...Object.values(GATE_METRIC_NAMES), HTTP_DURATION_METRIC]) {
      expect(GATE_DOC, name).toContain(`\`${name}`);
    }
  });
});
