import { z } from 'zod';

/** What OAuth values look like: printable ASCII, bounded (RFC 6749's VSCHAR for codes, states and verifiers). */
const oauthValue = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII');

/** A device's own description; shown back in the user's device list. */
const deviceSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200).optional(),
  platform: z.string().min(1).max(50).optional(),
});

/**
 * `POST /api/v1/auth/oidc/exchange`. A browser sends what the provider returned to `/auth/callback` (its flow
 * cookie carries the rest); an app also sends the PKCE verifier, the nonce and the redirect URI of its own
 * authorize request, and its device (README, "Single sign-on").
 */
export const exchangeSchema = z.union([
  z.object({
    code: oauthValue(2048),
    state: oauthValue(512),
    iss: z.url().max(2048).optional(),
  }),
  z.object({
    code: oauthValue(2048),
    iss: z.url().max(2048).optional(),
    // RFC 7636: 43 to 128 unreserved characters.
    codeVerifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be a PKCE code verifier'),
    nonce: oauthValue(512),
    redirectUri: z.string().min(1).max(2048),
    device: deviceSchema,
  }),
]);
export type ExchangeRequest = z.infer<typeof exchangeSchema>;

/** `POST /api/v1/auth/token/refresh` and the refresh token a device logout may name. */
export const refreshSchema = z.object({ refreshToken: oauthValue(256) });

/** `GET /auth/oidc/start?returnTo=`. */
export const startQuery = z.object({ returnTo: z.string().max(2048).optional() });

/** The `{id}` of `/api/v1/auth/devices/{id}`. */
export const deviceParams = z.object({ id: z.string().min(32).max(64) });
