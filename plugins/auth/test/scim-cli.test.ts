/** `gatehouse scim token create|list|revoke` through the real CLI, against a gateway serving SCIM. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashScimToken } from '../src/domain/scim/token.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { processEnv, spawnGateway } from '../../../test/support/process.ts';
import { scimClient } from '../../../test/support/scim.ts';

let db: TestDatabase;
let gateway: TestGateway;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url, env: { GATEWAY_PLUGINS: 'auth' } });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

async function gatehouse(args: string[]) {
  const child = spawnGateway({ args, env: processEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' }) });
  child.child.stdin.end();
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

describe('gatehouse scim token', () => {
  it('create prints the token once; list never shows it; revoke refuses it from the next request', async () => {
    const created = await gatehouse(['scim', 'token', 'create', '--name', 'entra']);
    expect(created.code).toBe(0);
    const made = JSON.parse(created.stdout) as { id: string; name: string; prefix: string; token: string };
    expect(made).toMatchObject({ name: 'entra', revokedAt: null });
    expect(made.token).toMatch(/^scim_[\w-]{43}$/);
    expect(made.token.startsWith(made.prefix)).toBe(true);
    expect(created.stderr).toContain('shown once');

    // Only the hash is stored.
    const { rows } = await db.pool.query<{ hash: Buffer }>(
      'SELECT token_hash AS hash FROM auth_scim_tokens WHERE id = $1',
      [made.id],
    );
    expect(rows[0]?.hash.equals(hashScimToken(made.token))).toBe(true);
    const { rows: text } = await db.pool.query<{ row: string }>(
      'SELECT row_to_json(t)::text AS row FROM auth_scim_tokens t UNION ALL SELECT row_to_json(a)::text FROM audit_log a',
    );
    expect(text.map((row) => row.row).join('\n')).not.toContain(made.token.slice(5));

    const scim = scimClient(gateway.url, made.token);
    expect((await scim('GET', '/Users')).status).toBe(200);

    const listed = await gatehouse(['scim', 'token', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(made.token.slice(5));
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: made.id, name: 'entra', revokedAt: null }),
    ]);
    // The use was recorded.
    expect((JSON.parse(listed.stdout) as Array<{ lastUsedAt: string | null }>)[0]?.lastUsedAt).not.toBeNull();

    const revoked = await gatehouse(['scim', 'token', 'revoke', '--id', made.id]);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({
      id: made.id,
      revokedAt: expect.any(String) as unknown,
    });
    expect((await scim('GET', '/Users')).status).toBe(401);

    await gateway.audit.flush();
    const { rows: audit } = await db.pool.query<{ kind: string; actor: string }>(
      "SELECT kind, actor FROM audit_log WHERE kind LIKE 'auth.scim.token.%' ORDER BY id",
    );
    expect(audit).toEqual([
      { kind: 'auth.scim.token.created', actor: 'cli' },
      { kind: 'auth.scim.token.revoked', actor: 'cli' },
    ]);
  });

  it('needs a name, and a token id to revoke', async () => {
    expect((await gatehouse(['scim', 'token', 'create'])).code).toBe(64);
    expect((await gatehouse(['scim', 'token', 'revoke', '--id', 'nope'])).code).toBe(64);
    const unknown = await gatehouse([
      'scim',
      'token',
      'revoke',
      '--id',
      '00000000-0000-4000-8000-000000000000',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no token with the id');
  });
});
