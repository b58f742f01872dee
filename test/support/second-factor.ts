/**
 * The second-factor flows of the auth plugin as a client drives them (plugins/auth/README.md, "Second factors"):
 * password sign-in, the pending step, TOTP enrollment, codes computed from a secret at a given time.
 */
import { generate } from 'otplib';
import type { ManualClock } from '../../gateway/src/clock.ts';
import type { Queryable } from '../../gateway/src/plugin-api.ts';
import { seedLocalAccount } from './accounts.ts';
import { postJson, sessionCookieOf } from './http.ts';

/** What `POST /auth/login` and the second-step routes answer with. */
export interface SignInAnswer {
  status: 'signed_in' | 'second_factor_required' | 'second_factor_enrollment_required';
  pendingToken?: string;
  methods?: { totp: boolean; passkey: boolean; recoveryCode: boolean };
  recoveryCodes?: string[] | null;
  user?: { id: string; email: string; roles: string[] };
}

/** A browser-like caller of one gateway: its origin for cookie-authenticated changes. */
export interface Caller {
  url: string;
  origin: string;
}

/** The TOTP code of `secret` for the time `at` (what an authenticator app shows then). */
export function totpCode(secret: string, at: Date): Promise<string> {
  return generate({ secret, epoch: Math.floor(at.getTime() / 1000) });
}

/** Headers of a request made with a session cookie from the application's origin. */
export function withCookie(caller: Caller, cookie: string): Record<string, string> {
  return { cookie: `authjs.session-token=${cookie}`, origin: caller.origin };
}

export async function passwordSignIn(
  caller: Caller,
  email: string,
  password: string,
): Promise<{ res: Response; body: SignInAnswer; cookie: string }> {
  const res = await postJson(caller.url, '/auth/login', { email, password });
  const body = (await res.json()) as SignInAnswer;
  return { res, body, cookie: sessionCookieOf(res) };
}

/** The second step with a TOTP code. */
export async function totpStep(
  caller: Caller,
  pendingToken: string,
  code: string,
): Promise<{ res: Response; body: SignInAnswer & { code?: string }; cookie: string }> {
  const res = await postJson(caller.url, '/api/v1/auth/login/totp', { pendingToken, code });
  return { res, body: (await res.json()) as SignInAnswer, cookie: sessionCookieOf(res) };
}

/** TOTP enrollment with a session cookie or a pending sign-in that must enroll; the secret, without confirming. */
export async function beginTotp(
  caller: Caller,
  auth: { cookie: string } | { pendingToken: string },
): Promise<{ secret: string; otpauthUri: string; qrCodeSvg: string }> {
  const res =
    'cookie' in auth
      ? await postJson(caller.url, '/api/v1/auth/totp/enroll', {}, withCookie(caller, auth.cookie))
      : await postJson(caller.url, '/api/v1/auth/totp/enroll', { pendingToken: auth.pendingToken });
  if (res.status !== 200) throw new Error(`TOTP enroll: ${res.status} ${await res.text()}`);
  return (await res.json()) as { secret: string; otpauthUri: string; qrCodeSvg: string };
}

/** Confirms an enrollment with a code; the answer (and the cookie, when it completed a sign-in). */
export async function confirmTotp(
  caller: Caller,
  auth: { cookie: string } | { pendingToken: string },
  code: string,
): Promise<{ res: Response; body: SignInAnswer & { enrolled?: boolean }; cookie: string }> {
  const res =
    'cookie' in auth
      ? await postJson(caller.url, '/api/v1/auth/totp/confirm', { code }, withCookie(caller, auth.cookie))
      : await postJson(caller.url, '/api/v1/auth/totp/confirm', { code, pendingToken: auth.pendingToken });
  return { res, body: (await res.json()) as SignInAnswer, cookie: sessionCookieOf(res) };
}

/**
 * A new local account that signs in with its password and enrolls an authenticator app with that session. The
 * clock then moves one step on, so the codes a test makes next are newer than the one the confirmation burned.
 */
export async function seedEnrolledAccount(
  caller: Caller,
  db: Queryable,
  clock: ManualClock,
  account: { email: string; password: string; roles?: string[] },
): Promise<{ userId: string; secret: string; cookie: string; recoveryCodes: string[]; burned: string }> {
  const userId = await seedLocalAccount(db, account);
  const { cookie } = await passwordSignIn(caller, account.email, account.password);
  const { secret } = await beginTotp(caller, { cookie });
  const burned = await totpCode(secret, clock.now());
  const confirmed = await confirmTotp(caller, { cookie }, burned);
  if (confirmed.res.status !== 200) throw new Error(`TOTP confirm: ${confirmed.res.status}`);
  clock.advance(30_000);
  return { userId, secret, cookie, recoveryCodes: confirmed.body.recoveryCodes ?? [], burned };
}
