/**
 * The second-factor flows of the auth plugin as a client drives them (plugins/auth/README.md, "Second factors"):
 * password sign-in, the pending step, TOTP enrollment, codes computed from a secret at a given time.
 */
import { generate } from 'otplib';
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
