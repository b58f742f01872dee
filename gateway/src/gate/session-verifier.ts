import { hash, hkdfSync } from 'node:crypto';
import { base64url, calculateJwkThumbprint, errors as joseErrors, jwtDecrypt, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { isCleanIdentifier } from '../text/storable-text.ts';

/**
 * Layer 2, the forwarded session (ADR 0004; a format the dashboards rely on): `X-Forwarded-Session` holds an
 * Auth.js session token, a compact JWE with `alg: dir` and `enc: A256CBC-HS512` (A256GCM accepted), whose
 * key is HKDF-SHA256(AUTH_SECRET, salt = cookie name, info = "Auth.js Generated Encryption Key (<salt>)").
 * It is decrypted, not signature-checked: an Auth.js token is a JWE, not a signed JWT, and its authenticated
 * encryption protects it as a signature would, so a token that decrypts was made with AUTH_SECRET.
 *
 * This one module serves the HTTP gate and, later, the socket.io handshake, so a realtime client
 * authenticates with the same token and the same rules as an HTTP one (ADR 0004).
 *
 * Decrypting costs tens of microseconds; a busy dashboard sends the same token on every request, so
 * verified tokens are kept in a bounded LRU keyed by the token's SHA-256, each entry checked against its
 * own `exp` on every hit. Session checks (revocation) and the session resolver (the identity as it is now)
 * run on every call, cached or not: the cache holds what the token says, never what it grants.
 */
export interface SessionIdentity {
  sub: string;
  email: string | null;
  roles: readonly string[];
  /** The gateway's own server-side session id, when the token was issued by the auth plugin. */
  sid: string | null;
}

export type SessionFailure =
  'missing' | 'malformed' | 'invalid' | 'expired' | 'claims' | 'revoked' | 'unresolved';
export type SessionResult = { ok: true; identity: SessionIdentity } | { ok: false; reason: SessionFailure };

/** A check the auth plugin adds to reject revoked sessions; `false` rejects. */
export type SessionCheck = (identity: SessionIdentity) => boolean | Promise<boolean>;

/**
 * The one source of truth for the identity behind a verified session (the auth plugin's, at most one):
 * given what the token claims, it answers the identity as it is now (current roles), or null to reject.
 * It should answer synchronously when it can (from memory): a Promise costs every request a microtask turn.
 */
export type SessionResolver = (
  identity: SessionIdentity,
) => SessionIdentity | null | Promise<SessionIdentity | null>;

export interface SessionVerifier {
  /**
   * Verifies a token. Synchronous for a cached token whose checks answer synchronously (the common case
   * of a busy dashboard), so the request does not wait for a microtask turn; a Promise otherwise.
   */
  verify(token: string | undefined): SessionResult | Promise<SessionResult>;
  /** Adds a check run on every verification (e.g. "is this sid revoked?"). */
  addCheck(check: SessionCheck): void;
  /** Sets the resolver run on every verification after the checks; throws when one is set already. */
  setResolver(resolver: SessionResolver): void;
}

/** Auth.js decodes with 15 s of clock tolerance; so do we, so a token valid there is valid here. */
const CLOCK_TOLERANCE_SECONDS = 15;
const ENCRYPTIONS = { 'A256CBC-HS512': 64, A256GCM: 32 } as const;
export type Encryption = keyof typeof ENCRYPTIONS;

/**
 * Text a claim may hold: well-formed Unicode without control characters. An identity is written into audit
 * rows (PostgreSQL text refuses U+0000) and into the `X-Gatehouse-*` headers of upstream requests (no header
 * value may hold a control character), so a token whose claims could not travel there is refused as a whole
 * (`claims`), never half-used.
 */
const claimText = z.string().refine(isCleanIdentifier, {
  error: 'must be text without control characters',
});

const claims = z.object({
  sub: claimText.min(1),
  email: claimText.nullish(),
  roles: z.array(claimText).optional(),
  role: claimText.optional(),
  sid: claimText.min(1).optional(),
});

export interface DerivedKey {
  enc: Encryption;
  key: Uint8Array;
  kid: string;
}

/**
 * The keys Auth.js derives from AUTH_SECRET (HKDF-SHA256, salt = cookie name), one per secret and content
 * encryption, each with the `kid` Auth.js puts in the header (its JWK thumbprint). Derived once at boot.
 */
export async function deriveSessionKeys(
  secrets: readonly string[],
  cookieName: string,
): Promise<DerivedKey[]> {
  const keys: DerivedKey[] = [];
  for (const secret of secrets) {
    for (const [enc, length] of Object.entries(ENCRYPTIONS) as Array<[Encryption, number]>) {
      const key = new Uint8Array(
        hkdfSync('sha256', secret, cookieName, `Auth.js Generated Encryption Key (${cookieName})`, length),
      );
      const kid = await calculateJwkThumbprint(
        { kty: 'oct', k: base64url.encode(key) },
        `sha${length * 8}` as 'sha256',
      );
      keys.push({ enc, key, kid });
    }
  }
  return keys;
}

interface CacheEntry {
  identity: SessionIdentity;
  /** Epoch seconds; the entry is dead once the clock passes it (plus tolerance). */
  exp: number;
}

/** Derives the keys once per secret at boot (HKDF is the costly part of Auth.js's decode). */
export async function createSessionVerifier(options: {
  secrets: readonly string[];
  cookieName: string;
  clock: Clock;
  cacheSize: number;
}): Promise<SessionVerifier> {
  const keys = await deriveSessionKeys(options.secrets, options.cookieName);
  const cache = options.cacheSize > 0 ? new LRUCache<string, CacheEntry>({ max: options.cacheSize }) : null;
  const checks: SessionCheck[] = [];
  let resolver: SessionResolver | null = null;

  const decrypt = async (token: string, key: string): Promise<SessionResult> => {
    const result = await decryptSession(token, keys, options.clock);
    if (!result.ok) return result;
    cache?.set(key, { identity: result.identity, exp: result.exp });
    return { ok: true, identity: result.identity };
  };

  /**
   * Runs the session checks, then the resolver; stays synchronous while every step answers synchronously
   * (ADR 0004: a cached token with in-memory checks costs no microtask turn).
   */
  const runChecks = (identity: SessionIdentity, from = 0): SessionResult | Promise<SessionResult> => {
    for (let i = from; i < checks.length; i++) {
      const verdict = (checks[i] as SessionCheck)(identity);
      if (verdict instanceof Promise) {
        return verdict.then((ok) => (ok ? runChecks(identity, i + 1) : { ok: false, reason: 'revoked' }));
      }
      if (!verdict) return { ok: false, reason: 'revoked' };
    }
    return resolve(identity);
  };

  const resolve = (identity: SessionIdentity): SessionResult | Promise<SessionResult> => {
    if (resolver === null) return { ok: true, identity };
    const resolved = resolver(identity);
    return resolved instanceof Promise ? resolved.then(settle) : settle(resolved);
  };

  return {
    verify(token) {
      if (token === undefined || token === '') return { ok: false, reason: 'missing' };
      const key = cacheKey(token);
      const cached = cache?.get(key);
      if (cached && options.clock.nowMs() / 1000 <= cached.exp + CLOCK_TOLERANCE_SECONDS) {
        return runChecks(cached.identity);
      }
      if (cached) cache?.delete(key);
      return decrypt(token, key).then((result) => (result.ok ? runChecks(result.identity) : result));
    },
    addCheck(check) {
      checks.push(check);
    },
    setResolver(next) {
      if (resolver !== null) throw new Error('a session resolver is already set');
      resolver = next;
    },
  };
}

/**
 * Decrypts a token as Auth.js's `decode()` does and reads the identity it claims, with its `exp` (epoch
 * seconds) for the cache. The costly step of a first sight of a token.
 */
async function decryptSession(
  token: string,
  keys: readonly DerivedKey[],
  clock: Clock,
): Promise<{ ok: true; identity: SessionIdentity; exp: number } | { ok: false; reason: SessionFailure }> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtDecrypt(
      token,
      (header) => {
        // As Auth.js: the `kid` names the secret; without one, the first secret's key is tried.
        const candidates = keys.filter((k) => k.enc === header.enc);
        const chosen =
          header.kid === undefined ? candidates[0] : candidates.find((k) => k.kid === header.kid);
        if (!chosen) throw new joseErrors.JWEDecryptionFailed();
        return chosen.key;
      },
      {
        currentDate: clock.now(),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: Object.keys(ENCRYPTIONS),
      },
    ));
  } catch (err) {
    return { ok: false, reason: failureOf(err) };
  }
  const parsed = claims.safeParse(payload);
  if (!parsed.success || typeof payload.exp !== 'number') return { ok: false, reason: 'claims' };
  const identity: SessionIdentity = {
    sub: parsed.data.sub,
    email: parsed.data.email ?? null,
    roles: parsed.data.roles ?? (parsed.data.role ? [parsed.data.role] : []),
    sid: parsed.data.sid ?? null,
  };
  return { ok: true, identity, exp: payload.exp };
}

function settle(identity: SessionIdentity | null): SessionResult {
  return identity === null ? { ok: false, reason: 'unresolved' } : { ok: true, identity };
}

/** One-shot SHA-256 (crypto.hash): about half the cost of a Hash object for a token this size. */
function cacheKey(token: string): string {
  return hash('sha256', token, 'base64');
}

function failureOf(err: unknown): SessionFailure {
  if (err instanceof joseErrors.JWTExpired) return 'expired';
  if (err instanceof joseErrors.JWEDecryptionFailed) return 'invalid';
  if (
    err instanceof joseErrors.JWEInvalid ||
    err instanceof joseErrors.JWTInvalid ||
    err instanceof joseErrors.JOSENotSupported
  ) {
    return 'malformed';
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'invalid';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return 'claims';
  return 'malformed';
}
