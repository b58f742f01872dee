/** `gatehouse admin create` through the real CLI, and the account store's concurrency guarantee. */
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userStore } from '../src/store/user-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { processEnv, spawnGateway } from '../../../test/support/process.ts';
import { canonical, seedLocalAccount } from '../../../test/support/accounts.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

async function adminCreate(args: string[], stdin: string) {
  const child = spawnGateway({
    args: ['admin', 'create', ...args],
    env: processEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' }),
  });
  child.child.stdin.end(stdin);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

describe('gatehouse admin create', () => {
  it('creates a local account with an argon2id hash and the wildcard admin role, audited without secrets', async () => {
    const password = 'correct horse battery staple';
    const { code, stdout } = await adminCreate(['--email', 'Root@Example.com'], `${password}\n`);
    expect(code).toBe(0);
    // Stored, and shown, in the canonical form (docs/adr/0008-canonical-email.md).
    expect(stdout).toMatch(/^created administrator root@example.com \([0-9a-f-]{36}\)$/m);
    const user = await userStore.findByEmail(db.pool, canonical('root@example.COM'));
    expect(user).toMatchObject({
      email: 'root@example.com',
      provider: 'local',
      directoryManaged: false,
      roles: ['*'],
    });
    expect(user?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await argon2.verify(user?.passwordHash ?? '', password)).toBe(true);
    const { rows } = await db.pool.query<{ kind: string; actor: string; payload: string }>(
      "SELECT kind, actor, payload::text FROM audit_log WHERE kind LIKE 'auth.%' ORDER BY id",
    );
    expect(rows.map((row) => [row.kind, row.actor])).toEqual([
      ['auth.register', 'cli'],
      ['auth.role.granted', 'cli'],
    ]);
    for (const row of rows) {
      expect(row.payload).not.toContain(password);
      expect(row.payload).not.toContain('argon2');
    }
  });

  it('refuses an email that exists in another case', async () => {
    const { code, stderr } = await adminCreate(
      ['--email', 'ROOT@example.com'],
      'another long password here\n',
    );
    expect(code).toBe(1);
    expect(stderr).toContain('an account with the email root@example.com already exists');
  });

  it('refuses a password shorter than the configured minimum, counted in code points after NFKC', async () => {
    // 11 characters; "ﬁ" (U+FB01) becomes "fi" under NFKC, so this is 12 code points once normalised.
    expect((await adminCreate(['--email', 'a@example.com'], 'short pass!\n')).code).toBe(1);
    expect((await adminCreate(['--email', 'b@example.com'], 'ﬁ short pass\n')).code).toBe(0);
  });

  it('applies the password policy: a common password and one containing the email name are refused', async () => {
    const common = await adminCreate(['--email', 'c@example.com'], 'password1234\n');
    expect(common.code).toBe(1);
    expect(common.stderr).toContain('(auth.password.common)');
    const named = await adminCreate(['--email', 'margaret@example.com'], 'i am margaret, admin!\n');
    expect(named.code).toBe(1);
    expect(named.stderr).toContain('(auth.password.contains_email)');
  });

  it('needs --email', async () => {
    const { code, stderr } = await adminCreate([], 'whatever password\n');
    expect(code).toBe(64);
    expect(stderr).toContain('--email <address> is required');
  });
});

describe('accounts', () => {
  it('20 parallel creations of one email yield exactly one account', async () => {
    const hash = await argon2.hash('a long enough password', {
      type: argon2.argon2id,
      memoryCost: 19456,
      timeCost: 2,
      parallelism: 1,
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        userStore.insertLocal(db.pool, canonical(i % 2 ? 'Race@Example.com' : 'race@example.com'), hash),
      ),
    );
    expect(results.filter((result) => result !== null)).toHaveLength(1);
    const { rows } = await db.pool.query(
      "SELECT count(*)::int AS n FROM auth_users WHERE lower(email) = 'race@example.com'",
    );
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('the database refuses a password minimum below the floor of 8', async () => {
    await expect(db.pool.query('UPDATE auth_settings SET password_min_length = 7')).rejects.toThrow(
      /auth_settings_password_min_length_check/,
    );
  });
});

describe('gatehouse admin reset-factors', () => {
  async function resetFactors(args: string[]) {
    const child = spawnGateway({
      args: ['admin', 'reset-factors', ...args],
      env: processEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' }),
    });
    child.child.stdin.end();
    const code = await child.exited;
    return { code, stdout: child.stdout(), stderr: child.stderr() };
  }

  it('removes the last admin’s TOTP, passkeys and recovery codes, ends its sessions, and audits it', async () => {
    const id = await seedLocalAccount(db.pool, {
      email: 'last-admin@example.com',
      password: 'the last admin password',
      roles: ['*'],
    });
    await db.pool.query(
      `INSERT INTO auth_totp (user_id, key_id, secret_sealed, created_at, confirmed_at)
         VALUES ($1, 'k1', decode(repeat('00', 40), 'hex'), now(), now());
       INSERT INTO auth_passkeys (user_id, credential_id, public_key, sign_count, name, device_type, backed_up, created_at)
         VALUES ($1, 'cred-root', '\\x00', 3, 'Laptop', 'singleDevice', false, now());
       INSERT INTO auth_recovery_codes (user_id, code_hash, created_at) VALUES ($1, decode(repeat('11', 32), 'hex'), now());
       INSERT INTO auth_sessions (id, user_id, expires_at) VALUES (repeat('s', 43), $1, now() + interval '1 hour');`.replaceAll(
        '$1',
        `'${id}'`,
      ),
    );
    const { code, stdout } = await resetFactors(['--email', 'Last-Admin@example.com']);
    expect(code).toBe(0);
    expect(stdout).toContain('reset the second factors of last-admin@example.com');
    const { rows } = await db.pool.query(
      `SELECT (SELECT count(*)::int FROM auth_totp WHERE user_id = $1) AS totp,
              (SELECT count(*)::int FROM auth_passkeys WHERE user_id = $1) AS passkeys,
              (SELECT count(*)::int FROM auth_recovery_codes WHERE user_id = $1) AS codes,
              (SELECT count(*)::int FROM auth_sessions WHERE user_id = $1 AND revoked_at IS NULL) AS sessions,
              (SELECT factor_enrollment_required FROM auth_users WHERE id = $1) AS "mustEnroll"`,
      [id],
    );
    expect(rows[0]).toEqual({ totp: 0, passkeys: 0, codes: 0, sessions: 0, mustEnroll: true });
    const audit = await db.pool.query(
      "SELECT actor, payload FROM audit_log WHERE kind = 'auth.factors.reset' ORDER BY id DESC LIMIT 1",
    );
    expect(audit.rows[0]).toEqual({
      actor: 'cli',
      payload: { userId: id, authenticatorApp: true, passkeys: 1, recoveryCodes: 1, sessions: 1 },
    });
  });

  it('says so when no account has the email, and needs --email', async () => {
    expect(await resetFactors(['--email', 'ghost@example.com'])).toMatchObject({ code: 1 });
    expect((await resetFactors([])).code).toBe(64);
  });
});
