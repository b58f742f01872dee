import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import { integer, list, oneOf, port, secret } from './env-schema.ts';

/** The plugins a gateway runs when GATEWAY_PLUGINS is unset (docs/configuration.md, "Core variables"). */
export const DEFAULT_PLUGINS = ['auth', 'kyc', 'messaging', 'realtime'] as const;

/** CORS_ORIGINS: each entry an exact origin; each bad entry is named in its own message. */
const origins = list([]).superRefine((entries, ctx) => {
  for (const entry of entries) {
    if (!isOrigin(entry)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${entry}" is not an origin like https://app.example.com (no path, no trailing slash, no "*")`,
      });
    }
  }
});

function isOrigin(value: string): boolean {
  try {
    return value !== '*' && new URL(value).origin === value;
  } catch {
    return false;
  }
}

/**
 * TRUST_PROXY, in Express's "trust proxy" forms: true/false, a hop count, or a comma-separated list of
 * addresses, CIDR ranges and the names loopback, linklocal, uniquelocal. Checked here with the same
 * parser Express uses (proxy-addr), so a typo refuses boot instead of failing later.
 */
const trustProxy = z
  .string()
  .default('false')
  .transform((value, ctx): boolean | number | string => {
    if (value === 'true') return true;
    if (value === 'false') return false;
    if (/^\d+$/.test(value)) return Number(value);
    try {
      proxyaddr.compile(value.split(',').map((entry) => entry.trim()));
      return value;
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `must be true, false, a hop count or addresses/CIDRs (${(err as Error).message})`,
      });
      return z.NEVER;
    }
  });

const databaseUrl = z
  .string()
  .refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), 'must be a postgres:// URL');

/**
 * The core's environment variables. Plugins declare their own; docs/configuration.md lists them all.
 * `APP_ENV=development` is the only special value: everything else is treated as production.
 */
export const coreConfigSchema = z.object({
  APP_ENV: z.string().default('production'),
  /** Where users reach the web app: cookie names (Secure prefix) and passkey relying-party defaults derive from it. */
  APP_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  HOST: z.string().default('0.0.0.0'),
  PORT: port(8080),
  METRICS_HOST: z.string().optional(),
  METRICS_PORT: port(9464),
  DATABASE_URL: secret(databaseUrl.optional()),
  DATABASE_POOL_MAX: integer(10, 1, 500),
  DATA_DIR: z.string().default('.data'),
  EMBEDDED_PG_PORT: port(54320),
  GATEWAY_PLUGINS: list(DEFAULT_PLUGINS),
  CORS_ORIGINS: origins,
  TRUST_PROXY: trustProxy,
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_MS: integer(10_000, 0, 600_000),
});

export type CoreConfig = z.output<typeof coreConfigSchema>;

export function isDevelopment(config: Pick<CoreConfig, 'APP_ENV'>): boolean {
  return config.APP_ENV === 'development';
}

/**
 * In development, an unset APP_BASE_URL means the gateway's own address, so a browser on the address the
 * gateway prints passes the Origin check of cookie-authenticated changes without any setting. A wildcard
 * HOST (0.0.0.0, ::) is reached as http://127.0.0.1; `localhost` stays `localhost` (browsers send the
 * origin that was typed, so whoever browses another name sets APP_BASE_URL). PORT=0 has no address
 * before it listens: no default then. Outside development an unset APP_BASE_URL stays unset.
 */
export function withDevelopmentDefaults(config: CoreConfig): CoreConfig {
  if (!isDevelopment(config) || config.APP_BASE_URL !== undefined || config.PORT === 0) return config;
  const base = ownBaseUrl(config.HOST, config.PORT);
  return base === undefined ? config : { ...config, APP_BASE_URL: base };
}

/** `http://<host>:<port>` as a browser on this machine reaches a listener bound to HOST. */
export function ownBaseUrl(host: string, port: number): string | undefined {
  const name = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : isIP(host) === 6 ? `[${host}]` : host;
  const url = `http://${name}:${port}`;
  return URL.canParse(url) ? new URL(url).origin : undefined;
}
