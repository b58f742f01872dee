/**
 * LDAP_MODE=only (README, "LDAP sign-in"): the directory is the one password source; a local password works only
 * for break-glass admins (wildcard role), always with a second factor, audited `auth.login.break_glass`; directory
 * accounts are exempt from the require-TOTP setting. Against a real OpenLDAP slapd.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLocalAccount } from '../../../test/support/accounts.ts';
import { createManualClock } from '../../../test/support/core.ts';
import { startDirectoryGateway, type DirectoryGateway } from '../../../test/support/ldap-directory.ts';
import { postJson } from '../../../test/support/http.ts';
import {
  beginTotp,
  confirmTotp,
  passwordSignIn,
  totpCode,
  type Caller,
} from '../../../test/support/second-factor.ts';

const PASSWORD = 'violet umbrella 42';
const clock = createManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 10_000);
let directory: DirectoryGateway | null;
let caller: Caller;
let rootId = '';

beforeAll(async () => {
  directory = await startDirectoryGateway(
    async (db) => {
      rootId = await seedLocalAccount(db.pool, {
        email: 'root@example.com',
        password: PASSWORD,
        roles: ['*'],
      });
      await seedLocalAccount(db.pool, { email: 'local-staff@example.com', password: PASSWORD });
      // The setting is on: directory accounts are exempt, local ones are not.
      await db.pool.query('UPDATE auth_settings SET require_totp = true, registration_enabled = true');
    },
    { env: { LDAP_MODE: 'only', APP_BASE_URL: 'http://localhost:3000' }, clock },
  );
  if (directory) caller = { url: directory.gateway.url, origin: 'http://localhost:3000' };
}, 120_000);
afterAll(async () => {
  await directory?.close();
});

// Without slapd: fails in CI (requireTool), skips locally with a message naming the package.
describe('LDAP_MODE=only', () => {
  it('signs directory accounts in through the directory, without a second factor (their MFA is the provider’s)', async () => {
    if (!directory) return;
    const grace = await passwordSignIn(caller, 'grace@example.com', 'cobol forever 1959');
    expect(grace.body).toMatchObject({ status: 'signed_in', user: { email: 'grace@example.com' } });
  });

  it('refuses a local password of an account that is not a wildcard admin, like a wrong password', async () => {
    if (!directory) return;
    const staff = await passwordSignIn(caller, 'local-staff@example.com', PASSWORD);
    expect(staff.res.status).toBe(401);
    expect((staff.body as unknown as { code: string }).code).toBe('auth.invalid_credentials');
  });

  it('takes a wildcard admin’s local password only with a second factor, audited as break-glass', async () => {
    if (!directory) return;
    const first = await passwordSignIn(caller, 'root@example.com', PASSWORD);
    expect(first.body.status).toBe('second_factor_enrollment_required');
    const pendingToken = first.body.pendingToken ?? '';
    const { secret } = await beginTotp(caller, { pendingToken });
    const done = await confirmTotp(caller, { pendingToken }, await totpCode(secret, clock.now()));
    expect(done.body.status).toBe('signed_in');
    await directory.gateway.audit.flush();
    const { rows } = await directory.db.pool.query(
      "SELECT payload FROM audit_log WHERE kind = 'auth.login.break_glass' AND actor = $1",
      [rootId],
    );
    expect(rows).toEqual([{ payload: { method: 'password', factor: 'totp' } }]);
  });

  it('tells clients the password form is for everyone, with directory passwords and break-glass local ones', async () => {
    if (!directory) return;
    const methods = (await (await fetch(`${caller.url}/api/v1/auth/methods`)).json()) as Record<
      string,
      unknown
    >;
    expect(methods).toMatchObject({
      password: true,
      ldap: true,
      ldapOnly: true,
      breakGlass: true,
      passkeys: true,
    });
  });

  it('turns self-registration off (it would make local password accounts)', async () => {
    if (!directory) return;
    const res = await postJson(caller.url, '/auth/register', {
      email: 'newcomer@example.com',
      password: 'a long new password 9',
    });
    expect(res.status).toBe(403);
  });
});
