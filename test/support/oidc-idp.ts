import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import Provider, { type ClientMetadata } from 'oidc-provider';
import { freePort } from './process.ts';

/** What an account at the provider says about itself; tests change it between sign-ins. */
export interface IdpAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestIdp {
  issuer: string;
  /** Accounts by subject: set or change one before a sign-in. */
  accounts: Map<string, IdpAccount>;
  /**
   * Signs `subject` in at the provider for this authorize URL, as a browser would (login and consent through
   * the provider's own interaction pages), and answers where the provider sends the browser back: the
   * redirect URI with `code`, `state` and `iss`, or the error the provider answered instead.
   */
  signIn(authorizeUrl: string, subject: string): Promise<{ callback: URL } | { error: string }>;
  /** The next token response's ID token gets these claims changed, re-signed with the provider's own key. */
  tamperNextIdToken(change: (claims: JWTPayload) => JWTPayload): void;
  /** Requests that reached the token endpoint, by client address (the browser must never be one). */
  tokenRequests(): number;
  close(): Promise<void>;
}

/** The client a gateway with `OIDC_CLIENT_ID=gatehouse` and APP_BASE_URL http://127.0.0.1:3000 is (public, PKCE). */
export const DEFAULT_CLIENT: ClientMetadata = {
  client_id: 'gatehouse',
  application_type: 'native',
  token_endpoint_auth_method: 'none',
  redirect_uris: ['http://127.0.0.1:3000/auth/callback'],
};

/**
 * A real OpenID Provider (oidc-provider, certified) on loopback for the tests: authorization code flow with PKCE
 * required, RS256 ID tokens carrying the email and profile claims, and its development interactions (a login and
 * a consent page) that `signIn` drives over HTTP.
 */
export async function startTestIdp(
  options: { clients?: ClientMetadata[]; port?: number } = {},
): Promise<TestIdp> {
  const port = options.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  // A new key id each start: a provider started again on its port has rotated its signing key.
  const jwk = { ...(await exportJWK(privateKey)), kid: `key-${randomUUID()}`, alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, IdpAccount>();
  const provider = new Provider(issuer, {
    clients: options.clients ?? [DEFAULT_CLIENT],
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-idp-cookie-key'] },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The email and name in the ID token itself, as Keycloak, Entra ID and Okta put them there.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, ...(accounts.get(sub) ?? {}) }),
    }),
  });
  let tamper: ((claims: JWTPayload) => JWTPayload) | null = null;
  let tokenRequests = 0;
  const callback = provider.callback();

  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.startsWith('/token')) {
      tokenRequests++;
      if (tamper) {
        const change = tamper;
        tamper = null;
        rewriteIdToken(res, async (idToken) => {
          const header = decodeProtectedHeader(idToken);
          return new SignJWT(change(decodeJwt(idToken)))
            .setProtectedHeader({ alg: 'RS256', kid: header.kid, typ: header.typ })
            .sign(privateKey);
        });
      }
    }
    void callback(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  return {
    issuer,
    accounts,
    signIn: (authorizeUrl, subject) => driveSignIn(issuer, authorizeUrl, subject),
    tamperNextIdToken: (change) => {
      tamper = change;
    },
    tokenRequests: () => tokenRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Buffers the JSON the provider writes, swaps its `id_token`, and sends it on. */
function rewriteIdToken(res: ServerResponse, swap: (idToken: string) => Promise<string>): void {
  const chunks: Buffer[] = [];
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = ((chunk: Buffer | string) => {
    chunks.push(Buffer.from(chunk));
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: Buffer | string) => {
    if (chunk) chunks.push(Buffer.from(chunk));
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id_token?: string };
    void (async () => {
      if (body.id_token) body.id_token = await swap(body.id_token);
      const text = JSON.stringify(body);
      res.setHeader('content-length', Buffer.byteLength(text));
      write(text);
      end();
    })();
    return res;
  }) as typeof res.end;
}

/** Follows the provider's redirects with a cookie jar, submitting its login and consent forms. */
async function driveSignIn(
  issuer: string,
  authorizeUrl: string,
  subject: string,
): Promise<{ callback: URL } | { error: string }> {
  const jar = new Map<string, string>();
  const send = async (url: string, body?: URLSearchParams) => {
    const res = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  };
  let url = authorizeUrl;
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const res = await send(url, body);
    body = undefined;
    const location = res.headers.get('location');
    if (location === null) {
      const text = await res.text();
      return {
        // The provider's error page names the error: `<strong>error</strong>: invalid_redirect_uri`.
        error: /<strong>error<\/strong>: ([a-z_]{1,64})/.exec(text)?.[1] ?? `status ${res.status}`,
      };
    }
    const next = new URL(location, issuer);
    if (next.origin !== issuer) return { callback: next };
    url = next.href;
    const interaction = /^\/interaction\/([^/]+)$/.exec(next.pathname);
    if (interaction) {
      const page = await (await send(url)).text();
      const prompt = page.includes('name="login"') ? 'login' : 'consent';
      body = new URLSearchParams(prompt === 'login' ? { prompt, login: subject, password: 'x' } : { prompt });
    }
  }
  throw new Error('the sign-in did not come back to the client within 20 redirects');
}

/** The app's mobile callback the tests and the benchmark register. */
export const APP_CALLBACK = 'com.example.app://auth/callback';

/** What an app holds after the provider sent it back: the code, and the verifier and nonce it made. */
export interface AppAuthorization {
  code: string;
  iss: string;
  codeVerifier: string;
  nonce: string;
  redirectUri: string;
}

/**
 * What a mobile app does before it calls the gateway: its own PKCE verifier and nonce, the authorize request
 * with its callback, `subject` signing in at the provider, and the code it comes back with.
 */
export async function appAuthorization(
  idp: TestIdp,
  subject: string,
  redirectUri = APP_CALLBACK,
): Promise<AppAuthorization> {
  const codeVerifier = randomBytes(48).toString('base64url');
  const nonce = randomBytes(16).toString('base64url');
  const authorize = new URL(`${idp.issuer}/auth`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: 'gatehouse',
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    state: randomBytes(16).toString('base64url'),
    nonce,
    code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const landed = await idp.signIn(authorize.href, subject);
  if (!('callback' in landed)) throw new Error(`the provider refused: ${landed.error}`);
  const query = landed.callback.searchParams;
  return { code: query.get('code') ?? '', iss: query.get('iss') ?? '', codeVerifier, nonce, redirectUri };
}
