import { startGateway, type RunningGateway } from '../../gateway/src/gateway.ts';
import { BUILTIN_PLUGINS } from '../../app/builtin-plugins.ts';
import type { Clock } from '../../gateway/src/clock.ts';
import type { GatewayPlugin } from '../../gateway/src/plugin/types.ts';
import { fixturePlugin } from '../fixtures/fixture-plugin.ts';

export interface TestGateway extends RunningGateway {
  /** Every log line the gateway wrote, parsed. */
  logs(): Array<Record<string, unknown>>;
}

/**
 * Boots the real gateway in this process on random ports, against `databaseUrl`, with logs captured.
 * The fixture plugin is available (name it in GATEWAY_PLUGINS to enable it).
 */
export async function startTestGateway(options: {
  databaseUrl: string;
  env?: Record<string, string>;
  clock?: Clock;
  available?: readonly GatewayPlugin[];
}): Promise<TestGateway> {
  const lines: string[] = [];
  const gateway = await startGateway({
    env: {
      APP_ENV: 'test',
      API_AUTH_MODE: 'disabled',
      AUTH_MODE: 'local',
      AUTH_SECRET: 'test-auth-secret-0123456789abcdef',
      // Suites that fail many logins from one address on purpose; plugins/auth/test/throttle.security.test.ts
      // sets its own.
      LOGIN_FREE_FAILURES_PER_ACCOUNT: '1000',
      LOGIN_FREE_FAILURES_PER_IP: '100000',
      REGISTER_FREE_ATTEMPTS_PER_IP: '100000',
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      DATABASE_URL: options.databaseUrl,
      DATABASE_POOL_MAX: '4',
      GATEWAY_PLUGINS: 'fixture',
      ...options.env,
    },
    available: options.available ?? [...BUILTIN_PLUGINS, fixturePlugin],
    clock: options.clock,
    logDestination: { write: (line: string) => void lines.push(line) },
  });
  return {
    ...gateway,
    logs: () =>
      lines
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
