import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreConfigSchema } from './core-config.ts';
import { boolean, list, port, secret } from './env-schema.ts';
import { readEnv } from './read-env.ts';

const schema = z.object({
  PORT: port(8080),
  TOKEN: secret(z.string().min(8, 'must be at least 8 characters').optional()),
  FLAG: boolean(false),
  NAMES: list(['a']),
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gatehouse-env-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readEnv', () => {
  it('applies defaults and treats empty strings as unset', () => {
    expect(readEnv(schema, { PORT: '', FLAG: '' })).toEqual({
      ok: true,
      value: { PORT: 8080, FLAG: false, NAMES: ['a'] },
    });
  });

  it('parses values', () => {
    expect(readEnv(schema, { PORT: '0', FLAG: 'yes', NAMES: ' x, y ,,z ' })).toMatchObject({
      ok: true,
      value: { PORT: 0, FLAG: true, NAMES: ['x', 'y', 'z'] },
    });
  });

  it('reads a secret from NAME_FILE without its trailing newline', async () => {
    const file = path.join(dir, 'token');
    await writeFile(file, 'abcdefgh12\n');
    expect(readEnv(schema, { TOKEN_FILE: file })).toMatchObject({ ok: true, value: { TOKEN: 'abcdefgh12' } });
  });

  it('ignores NAME_FILE for variables that are not secrets', () => {
    expect(readEnv(schema, { PORT_FILE: '/etc/passwd' })).toMatchObject({ ok: true, value: { PORT: 8080 } });
  });

  it('reports every problem, and never echoes a secret', () => {
    const result = readEnv(schema, { PORT: 'x', TOKEN: 'short', FLAG: 'maybe' });
    expect(result).toEqual({
      ok: false,
      problems: [
        'PORT: must be a port number (got "x")',
        'TOKEN: must be at least 8 characters',
        'FLAG: must be true or false (got "maybe")',
      ],
    });
  });

  it('the core defaults describe a gateway on 8080 with metrics on 9464 and all four plugins', () => {
    const result = readEnv(coreConfigSchema, {});
    expect(result).toMatchObject({
      ok: true,
      value: {
        PORT: 8080,
        METRICS_PORT: 9464,
        APP_ENV: 'production',
        GATEWAY_PLUGINS: ['auth', 'kyc', 'messaging', 'realtime'],
        DATA_DIR: '.data',
      },
    });
  });
});
