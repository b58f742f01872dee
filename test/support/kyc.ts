/** Helpers for the KYC suites: a gateway with the kyc plugin, staff calls, tenants and keys. */
import { AUTH_SECRET, gateEnv, mintSession } from './gate.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import { processEnv, spawnGateway } from './process.ts';
import type { Clock } from '../../gateway/src/clock.ts';
import { SESSION_HEADER } from '../../gateway/src/gate/gate.ts';

export interface KycTenant {
  id: string;
  name: string;
  sandbox: boolean;
  webhookSecret?: string;
}

export interface KycKey {
  id: string;
  key: string;
  displayPrefix: string;
}

/** A gateway running the kyc plugin with a fast worker and an instant sandbox provider. */
export function startKycGateway(options: {
  databaseUrl: string;
  env?: Record<string, string>;
  clock?: Clock;
}): Promise<TestGateway> {
  return startTestGateway({
    databaseUrl: options.databaseUrl,
    clock: options.clock,
    env: {
      GATEWAY_PLUGINS: 'kyc',
      ...gateEnv('disabled'),
      AUTH_SECRET,
      KYC_SANDBOX_DELAY_MS: '0',
      KYC_WORKER_INTERVAL_MS: '25',
      ...options.env,
    },
  });
}

/** Headers of a staff member with the kyc:admin role (the forwarded session the admin routes verify). */
export async function staffHeaders(
  roles: string[] = ['kyc:admin'],
  maxAgeSeconds = 3600,
): Promise<Record<string, string>> {
  return {
    'content-type': 'application/json',
    [SESSION_HEADER]: await mintSession({ claims: { sub: 'reviewer-7', roles }, maxAge: maxAgeSeconds }),
  };
}

/** Calls an admin route as staff; throws unless the status is the expected one. */
export async function staff<T>(
  gateway: { url: string },
  method: string,
  path: string,
  body?: unknown,
  expected = method === 'POST' && !path.includes('/decision') && !path.endsWith('/revoke') ? 201 : 200,
): Promise<T> {
  const res = await fetch(gateway.url + path, {
    method,
    headers: await staffHeaders(),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status !== expected) {
    throw new Error(`${method} ${path} answered ${res.status}, expected ${expected}: ${await res.text()}`);
  }
  return (await res.json()) as T;
}

export function createTenant(
  gateway: { url: string },
  tenant: { name: string; sandbox?: boolean; quotaLimit?: number; quotaPeriod?: string; webhookUrl?: string },
): Promise<KycTenant> {
  return staff<KycTenant>(gateway, 'POST', '/api/v1/admin/kyc/tenants', tenant);
}

export function createKey(
  gateway: { url: string },
  tenantId: string,
  body: { label?: string; expiresAt?: string } = {},
): Promise<KycKey> {
  return staff<KycKey>(gateway, 'POST', `/api/v1/admin/kyc/tenants/${tenantId}/keys`, body);
}

/** A tenant call with an API key. */
export function tenantCall(
  gateway: { url: string },
  key: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(gateway.url + path, {
    method,
    headers: {
      'x-api-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Runs `gatehouse kyc ...` as its own process against `databaseUrl`; stdout parsed as JSON when it is. */
export async function kycCli(
  databaseUrl: string,
  args: string[],
): Promise<{ code: number | null; json: unknown; stdout: string; stderr: string }> {
  const child = spawnGateway({
    args: ['kyc', ...args],
    env: processEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', GATEWAY_PLUGINS: 'kyc' }),
  });
  child.child.stdin.end();
  const code = await child.exited;
  const stdout = child.stdout();
  let json: unknown = null;
  try {
    json = JSON.parse(stdout);
  } catch {
    // not JSON (usage errors)
  }
  return { code, json, stdout, stderr: child.stderr() };
}
