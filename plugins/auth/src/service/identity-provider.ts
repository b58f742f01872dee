import * as oidc from 'openid-client';
import { BootError, type Logger } from '../../../../gateway/src/plugin-api.ts';

/** The claims of a validated ID token that sign-in uses. */
export interface IdTokenClaims {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

/** Why an exchange failed, in terms a route answers with (README, "Error codes"). */
export type ExchangeFailure =
  | 'code_rejected' // the token endpoint refused the code (replayed, expired, wrong verifier or redirect URI)
  | 'id_token_invalid' // the ID token failed validation (issuer, audience, nonce, expiry, signature)
  | 'provider_unavailable'; // the provider did not answer, or answered something that is not OAuth

export class ExchangeError extends Error {
  override readonly name = 'ExchangeError';
  readonly failure: ExchangeFailure;
  /** For the logs only: never shown to the client, never holds a token or a code. */
  readonly reason: string;
  constructor(failure: ExchangeFailure, reason: string) {
    super(`${failure}: ${reason}`);
    this.failure = failure;
    this.reason = reason;
  }
}

/** The one OpenID Provider of the deployment, discovered at boot (README, "Single sign-on"). */
export interface IdentityProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly authorizationEndpoint: string;
  /** The authorize URL a browser or an app is sent to: code flow, PKCE S256, state and nonce. */
  authorizeUrl(request: { redirectUri: string; state: string; nonce: string; codeChallenge: string }): URL;
  /**
   * Exchanges the code of `callbackUrl` (the redirect URI with the provider's query) at the token endpoint, from
   * the server, and validates the ID token; throws ExchangeError.
   */
  exchange(request: {
    callbackUrl: URL;
    codeVerifier: string;
    expectedState: string | null;
    expectedNonce: string;
  }): Promise<IdTokenClaims>;
}

/** Loopback issuers may be plain http (a provider on the same machine, tests); any other must be https. */
function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/**
 * Discovers the issuer, retrying with a doubling delay until `bootTimeoutMs` has passed; then refuses boot
 * with the issuer and the last error named. The signing keys are fetched when first needed, cached, and
 * fetched again when a token names a key id the cache does not hold (openid-client).
 */
export async function discoverIdentityProvider(options: {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  scopes: readonly string[];
  bootTimeoutMs: number;
  logger: Logger;
}): Promise<IdentityProvider> {
  const issuerUrl = new URL(options.issuer);
  const execute = isLoopback(issuerUrl) ? [oidc.allowInsecureRequests] : [];
  const auth = options.clientSecret ? oidc.ClientSecretBasic(options.clientSecret) : oidc.None();
  const deadline = Date.now() + options.bootTimeoutMs;
  let delayMs = 250;
  for (let attempt = 1; ; attempt++) {
    try {
      const config = await oidc.discovery(issuerUrl, options.clientId, undefined, auth, {
        execute,
        timeout: 10,
      });
      return identityProvider(config, options);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (Date.now() + delayMs > deadline) {
        throw new BootError([
          `OIDC_ISSUER: the issuer ${options.issuer} could not be discovered at ` +
            `${options.issuer.replace(/\/$/, '')}/.well-known/openid-configuration after ${attempt} attempt(s): ${reason}`,
        ]);
      }
      options.logger.warn({ issuer: options.issuer, attempt, reason }, 'oidc discovery failed; retrying');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, 5_000);
    }
  }
}

function identityProvider(
  config: oidc.Configuration,
  options: { issuer: string; clientId: string; scopes: readonly string[] },
): IdentityProvider {
  const metadata = config.serverMetadata();
  const scopes = options.scopes.includes('openid') ? options.scopes : ['openid', ...options.scopes];
  return {
    issuer: metadata.issuer,
    clientId: options.clientId,
    scopes,
    authorizationEndpoint: metadata.authorization_endpoint ?? '',
    authorizeUrl: ({ redirectUri, state, nonce, codeChallenge }) =>
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: scopes.join(' '),
        state,
        nonce,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      }),
    async exchange({ callbackUrl, codeVerifier, expectedState, expectedNonce }) {
      const tokens = await oidc
        .authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: codeVerifier,
          expectedState: expectedState ?? oidc.skipStateCheck,
          expectedNonce,
          idTokenExpected: true,
        })
        .catch((err: unknown) => {
          throw exchangeError(err);
        });
      const claims = tokens.claims();
      if (!claims) throw new ExchangeError('id_token_invalid', 'no ID token in the token response');
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email: typeof claims.email === 'string' ? claims.email : null,
        emailVerified: claims.email_verified === true,
        name: typeof claims.name === 'string' ? claims.name : null,
      };
    },
  };
}

/** openid-client's errors, sorted by whose fault they are. */
function exchangeError(err: unknown): ExchangeError {
  if (err instanceof oidc.ResponseBodyError || err instanceof oidc.AuthorizationResponseError)
    return new ExchangeError('code_rejected', err.error);
  const error = err as { name?: string; code?: string; message?: string };
  const reason = `${error.code ?? error.name ?? 'error'}: ${error.message ?? ''}`;
  const unreachable = ['TypeError', 'AbortError', 'TimeoutError'].includes(error.name ?? '');
  if (unreachable || error.code === 'OAUTH_RESPONSE_IS_NOT_JSON')
    return new ExchangeError('provider_unavailable', reason);
  // Claims, timestamps, signature, key selection, the response's `iss`: what the server got is not acceptable.
  return new ExchangeError('id_token_invalid', reason);
}
