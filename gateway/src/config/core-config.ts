import { z } from 'zod';
import { integer, list, oneOf, port, secret } from './env-schema.ts';

/** The plugins a gateway runs when GATEWAY_PLUGINS is unset (DECISIONS.md, "Plugins"). */
export const DEFAULT_PLUGINS = ['auth', 'kyc', 'messaging', 'realtime'] as const;

const origin = z.string().refine((value) => {
  if (value === '*') return false;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}, 'each entry must be an origin like https://app.example.com (no path, no trailing slash, no "*")');

const databaseUrl = z
  .string()
  .refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), 'must be a postgres:// URL');

/**
 * The core's environment variables. Plugins declare their own; docs/configuration.md lists them all.
 * `APP_ENV=development` is the only special value: everything else is treated as production.
 */
export const coreConfigSchema = z.object({
  APP_ENV: z.string().default('production'),
  HOST: z.string().default('0.0.0.0'),
  PORT: port(8080),
  METRICS_HOST: z.string().optional(),
  METRICS_PORT: port(9464),
  DATABASE_URL: secret(databaseUrl.optional()),
  DATABASE_POOL_MAX: integer(10, 1, 500),
  DATA_DIR: z.string().default('.data'),
  EMBEDDED_PG_PORT: port(54320),
  GATEWAY_PLUGINS: list(DEFAULT_PLUGINS),
  CORS_ORIGINS: list([]).pipe(z.array(origin)),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value): boolean | number | string => {
      if (value === 'true') return true;
      if (value === 'false') return false;
      return /^\d+$/.test(value) ? Number(value) : value;
    }),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_MS: integer(10_000, 0, 600_000),
});

export type CoreConfig = z.output<typeof coreConfigSchema>;

export function isDevelopment(config: Pick<CoreConfig, 'APP_ENV'>): boolean {
  return config.APP_ENV === 'development';
}
