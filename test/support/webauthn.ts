/**
 * Passkeys in a real browser (plugins/auth/README.md, "Passkeys"): a Chromium page on the gateway's own origin
 * (`http://localhost:<port>`: `localhost` is a valid relying-party id, an IP address is not) with the DevTools
 * virtual authenticator. The page runs `navigator.credentials.create` / `get` on the options the gateway gave and
 * returns `credential.toJSON()`, which the suite posts to the gateway as a browser script would.
 */
import type { Browser, CDPSession } from 'playwright-core';
import { openPage, type RecordedPage } from './browser.ts';
import { postJson, sessionCookieOf } from './http.ts';
import type { Caller, SignInAnswer } from './second-factor.ts';
import { withCookie } from './second-factor.ts';

/** What the virtual authenticator can do: a platform authenticator with discoverable credentials. */
export interface AuthenticatorOptions {
  /** Whether it can verify the user (a PIN, a fingerprint); false leaves the UV flag unset. */
  userVerification: boolean;
}

/** A credential as the DevTools WebAuthn domain holds it (private key included). */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

/** How a page may bend the options before calling the authenticator, as a hostile or broken client would. */
export type OptionsTweak = 'as-given' | 'no-user-verification';

type Json = Record<string, unknown>;

/** A page with one virtual authenticator attached. */
export interface PasskeyBrowser {
  recorded: RecordedPage;
  cdp: CDPSession;
  authenticatorId: string;
  /** `navigator.credentials.create` with the gateway's creation options; the response JSON. */
  create(options: Json, tweak?: OptionsTweak): Promise<Json>;
  /** `navigator.credentials.get` with the gateway's request options; the response JSON. */
  get(options: Json, tweak?: OptionsTweak): Promise<Json>;
  credentials(): Promise<VirtualCredential[]>;
  /** Puts a credential back with another signature counter (what a cloned authenticator would present). */
  setSignCount(credential: VirtualCredential, signCount: number): Promise<void>;
  /** Whether the authenticator's user verification succeeds from now on (false: its assertions lack the UV flag). */
  setUserVerified(verified: boolean): Promise<void>;
  /** Copies another page's credentials (keys and counters) into this page's authenticator. */
  adoptCredentials(from: PasskeyBrowser): Promise<void>;
  close(): Promise<void>;
}

async function addAuthenticator(cdp: CDPSession, options: AuthenticatorOptions): Promise<string> {
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      ctap2Version: 'ctap2_1',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: options.userVerification,
      isUserVerified: options.userVerification,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

/**
 * Opens a page on `origin` (the gateway's APP_BASE_URL) with a virtual authenticator. The page is a gateway
 * document, so the ceremony runs in the relying party's own origin; `page.evaluate` is not subject to its CSP.
 */
export async function openPasskeyBrowser(
  browser: Browser,
  origin: string,
  options: AuthenticatorOptions = { userVerification: true },
): Promise<PasskeyBrowser> {
  const recorded = await openPage(browser);
  await recorded.page.goto(`${origin}/api/v1/auth/methods`);
  const cdp = await recorded.context.newCDPSession(recorded.page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const authenticatorId = await addAuthenticator(cdp, options);
  const credentials = async () =>
    (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as VirtualCredential[];

  return {
    recorded,
    cdp,
    authenticatorId,
    create: (creation, tweak = 'as-given') =>
      recorded.page.evaluate(
        async ({ creation, tweak }) => {
          const json = structuredClone(creation) as unknown as PublicKeyCredentialCreationOptionsJSON;
          if (tweak === 'no-user-verification')
            json.authenticatorSelection = { ...json.authenticatorSelection, userVerification: 'discouraged' };
          const credential = (await navigator.credentials.create({
            publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(json),
          })) as PublicKeyCredential;
          return credential.toJSON() as unknown as Record<string, unknown>;
        },
        { creation, tweak },
      ),
    get: (request, tweak = 'as-given') =>
      recorded.page.evaluate(
        async ({ request, tweak }) => {
          const json = structuredClone(request) as unknown as PublicKeyCredentialRequestOptionsJSON;
          if (tweak === 'no-user-verification') json.userVerification = 'discouraged';
          const credential = (await navigator.credentials.get({
            publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(json),
          })) as PublicKeyCredential;
          return credential.toJSON() as unknown as Record<string, unknown>;
        },
        { request, tweak },
      ),
    credentials,
    async setSignCount(credential, signCount) {
      await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
      await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential, signCount } });
    },
    async setUserVerified(verified) {
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: verified });
    },
    async adoptCredentials(from) {
      for (const credential of await from.credentials())
        await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
    },
    close: () => recorded.close(),
  };
}

/** How a request proves who is asking: the session cookie, or the pendingToken of a password sign-in. */
export type PasskeyAuth = { cookie: string } | { pendingToken: string } | Record<string, never>;

function headersOf(caller: Caller, auth: PasskeyAuth): Record<string, string> {
  return 'cookie' in auth ? withCookie(caller, auth.cookie) : { origin: caller.origin };
}

function bodyOf(auth: PasskeyAuth): Json {
  return 'pendingToken' in auth ? { pendingToken: auth.pendingToken } : {};
}

/** A begin's answer. */
export interface Begun {
  ceremonyToken: string;
  options: Json;
}

/** `POST .../register/begin`; throws unless it answers 200. */
export async function beginRegistration(caller: Caller, auth: PasskeyAuth, extra: Json = {}): Promise<Begun> {
  const res = await postJson(
    caller.url,
    '/api/v1/auth/passkeys/register/begin',
    { ...bodyOf(auth), ...extra },
    headersOf(caller, auth),
  );
  if (res.status !== 200) throw new Error(`register/begin: ${res.status} ${await res.text()}`);
  return (await res.json()) as Begun;
}

/** `POST .../register/finish` with the browser's response. */
export async function finishRegistration(
  caller: Caller,
  auth: PasskeyAuth,
  body: { ceremonyToken: string; response: Json; name?: string },
): Promise<{ res: Response; body: Json; cookie: string }> {
  const res = await postJson(
    caller.url,
    '/api/v1/auth/passkeys/register/finish',
    body,
    headersOf(caller, auth),
  );
  return { res, body: (await res.json()) as Json, cookie: sessionCookieOf(res) };
}

/** Begin, create in the browser, finish: a passkey registered (or refused). */
export async function registerPasskey(
  caller: Caller,
  browser: PasskeyBrowser,
  auth: PasskeyAuth,
  options: { name?: string; tweak?: OptionsTweak } = {},
): Promise<{ res: Response; body: Json; cookie: string }> {
  const begun = await beginRegistration(caller, auth);
  const response = await browser.create(begun.options, options.tweak);
  return finishRegistration(caller, auth, {
    ceremonyToken: begun.ceremonyToken,
    response,
    ...(options.name === undefined ? {} : { name: options.name }),
  });
}

/** `POST .../sign-in/begin`: usernameless (`{}`), with a pendingToken, or `{stepUp: true}` with a cookie. */
export async function beginPasskeySignIn(caller: Caller, auth: PasskeyAuth, body: Json = {}): Promise<Begun> {
  const res = await postJson(
    caller.url,
    '/api/v1/auth/passkeys/sign-in/begin',
    { ...bodyOf(auth), ...body },
    headersOf(caller, auth),
  );
  if (res.status !== 200) throw new Error(`sign-in/begin: ${res.status} ${await res.text()}`);
  return (await res.json()) as Begun;
}

/** `POST .../sign-in/finish`. */
export async function finishPasskeySignIn(
  caller: Caller,
  auth: PasskeyAuth,
  body: { ceremonyToken: string; response: Json },
): Promise<{ res: Response; body: SignInAnswer & Json; cookie: string }> {
  const res = await postJson(
    caller.url,
    '/api/v1/auth/passkeys/sign-in/finish',
    body,
    headersOf(caller, auth),
  );
  return { res, body: (await res.json()) as SignInAnswer & Json, cookie: sessionCookieOf(res) };
}

/** Begin, get in the browser, finish: a passkey sign-in (usernameless unless `auth` names the account). */
export async function passkeySignIn(
  caller: Caller,
  browser: PasskeyBrowser,
  auth: PasskeyAuth = {},
  options: { stepUp?: boolean; tweak?: OptionsTweak } = {},
): Promise<{ res: Response; body: SignInAnswer & Json; cookie: string; response: Json }> {
  const begun = await beginPasskeySignIn(caller, auth, options.stepUp ? { stepUp: true } : {});
  const response = await browser.get(begun.options, options.tweak);
  const finished = await finishPasskeySignIn(caller, auth, { ceremonyToken: begun.ceremonyToken, response });
  return { ...finished, response };
}
