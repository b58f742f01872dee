import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import type { z } from 'zod';
import { sameSecret, type Clock, type Database, type Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { AuthDeployment } from '../deployment/validate.ts';
import { newOneTimeToken, tokenHash } from '../domain/one-time-token.ts';
import { counterAdvances, userHandleBytes, userHandleOf } from '../domain/passkey-rules.ts';
import type { authenticationResponseSchema, registrationResponseSchema } from '../domain/passkey-requests.ts';
import { passkeyStore, type NewPasskey, type StoredCredential } from '../store/passkey-store.ts';
import {
  webauthnCeremonyStore,
  type Ceremony,
  type CeremonyPurpose,
} from '../store/webauthn-ceremony-store.ts';
import type { CodeVerdict } from './second-factors.ts';

/** How long a ceremony waits for its finish (and how long the browser is told it may take). */
export const CEREMONY_SECONDS = 300;

/** The transports WebAuthn defines; anything else a browser reports is not kept. */
const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/** Why an attestation or an assertion was refused: audited, never told to the client. */
export type PasskeyRefusal =
  'challenge_mismatch' | 'user_handle_mismatch' | 'user_not_verified' | 'bad_signature' | 'rejected';

export type RegistrationVerdict =
  | { ok: true; credential: Omit<NewPasskey, 'userId' | 'name' | 'now'> }
  | { ok: false; reason: PasskeyRefusal };

export type AssertionVerdict =
  | { ok: true; presented: number; backedUp: boolean }
  | { ok: false; reason: PasskeyRefusal }
  /** A verified assertion whose counter did not increase: a cloned authenticator (README, "Passkeys"). */
  | { ok: false; reason: 'clone_suspected'; stored: number; presented: number };

type RegistrationInput = z.infer<typeof registrationResponseSchema>;
type AuthenticationInput = z.infer<typeof authenticationResponseSchema>;

/** What a ceremony's begin hands the browser: the token of the finish and the options of the WebAuthn call. */
export interface Begun<Options> {
  ceremonyToken: string;
  options: Options;
}

/**
 * Passkeys (README, "Passkeys"): WebAuthn ceremonies against the deployment's relying party, behind one-time
 * tokens of server-side rows. User verification is required in the options the browser gets and checked again in
 * every response; the signature counter is compared here, not left to the library, and stored only by a
 * compare-and-set in the transaction that issues the session.
 */
export function createPasskeys(deps: {
  db: Database;
  clock: Clock;
  relyingParty: NonNullable<AuthDeployment['webauthn']>;
  rpName: string;
}) {
  const { rpId, origins } = deps.relyingParty;
  const now = () => deps.clock.now();

  const begin = async <Options extends { challenge: string }>(
    ceremony: Omit<Ceremony, 'challenge'>,
    options: Options,
  ): Promise<Begun<Options>> => {
    const { token, hash } = newOneTimeToken();
    await webauthnCeremonyStore.create(deps.db, {
      ...ceremony,
      challenge: options.challenge,
      tokenHash: hash,
      now: now(),
      ttlSeconds: CEREMONY_SECONDS,
    });
    return { ceremonyToken: token, options };
  };

  /** The ceremony's challenge as the check the library calls, remembering whether (and how) it was judged. */
  const challengeCheck = (ceremony: Ceremony) => {
    const check = {
      matched: null as boolean | null,
      verify: (given: string) => (check.matched = sameSecret(given, ceremony.challenge)),
    };
    return check;
  };

  return {
    /** Options for `navigator.credentials.create`: a discoverable credential, user verification required. */
    async beginRegistration(account: {
      userId: string;
      email: string;
      pendingHash: Buffer | null;
      name: string | null;
    }): Promise<Begun<PublicKeyCredentialCreationOptionsJSON>> {
      const existing = await passkeyStore.descriptors(deps.db, account.userId);
      const options = await generateRegistrationOptions({
        rpName: deps.rpName,
        rpID: rpId,
        userName: account.email,
        userDisplayName: account.email,
        userID: userHandleBytes(account.userId),
        timeout: CEREMONY_SECONDS * 1000,
        attestationType: 'none',
        // The same authenticator twice would be one factor counted as two.
        excludeCredentials: existing,
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
      return begin(
        {
          purpose: 'register',
          userId: account.userId,
          pendingHash: account.pendingHash,
          passkeyName: account.name,
        },
        options,
      );
    },

    /**
     * Options for `navigator.credentials.get`. For a known account (the second step of a password sign-in, a
     * step-up) its passkeys are the allowed ones, and null comes back when it has none; a usernameless sign-in
     * lets the authenticator offer its discoverable credentials.
     */
    async beginAuthentication(ceremony: {
      purpose: Exclude<CeremonyPurpose, 'register'>;
      userId: string | null;
      pendingHash: Buffer | null;
    }): Promise<Begun<PublicKeyCredentialRequestOptionsJSON> | null> {
      const allowed =
        ceremony.userId === null ? undefined : await passkeyStore.descriptors(deps.db, ceremony.userId);
      if (allowed?.length === 0) return null;
      const options = await generateAuthenticationOptions({
        rpID: rpId,
        allowCredentials: allowed,
        userVerification: 'required',
        timeout: CEREMONY_SECONDS * 1000,
      });
      return begin({ ...ceremony, passkeyName: null }, options);
    },

    /** Uses up the ceremony of a token (single use, whatever the finish's outcome); null if none is live. */
    take: (token: string, purposes: readonly CeremonyPurpose[]) =>
      webauthnCeremonyStore.take(deps.db, tokenHash(token), purposes, now()),

    /** The stored passkey an assertion names. */
    credential: (credentialId: string) => passkeyStore.findByCredentialId(deps.db, credentialId),

    async verifyRegistration(ceremony: Ceremony, response: RegistrationInput): Promise<RegistrationVerdict> {
      const challenge = challengeCheck(ceremony);
      try {
        const result = await verifyRegistrationResponse({
          // The schema bounded its shape; the library reads and checks every field.
          response,
          expectedChallenge: challenge.verify,
          expectedOrigin: origins,
          expectedRPID: rpId,
          requireUserPresence: true,
          requireUserVerification: true,
        });
        if (!result.verified) return { ok: false, reason: 'rejected' };
        const info = result.registrationInfo;
        // Checked again here: user verification must hold whatever the library's defaults become.
        if (!info.userVerified) return { ok: false, reason: 'user_not_verified' };
        return {
          ok: true,
          credential: {
            credentialId: info.credential.id,
            publicKey: info.credential.publicKey,
            signCount: info.credential.counter,
            transports: (response.response.transports ?? []).filter((transport) => TRANSPORTS.has(transport)),
            aaguid: info.aaguid,
            deviceType: info.credentialDeviceType,
            backedUp: info.credentialBackedUp,
          },
        };
      } catch {
        return { ok: false, reason: refusalOf(challenge.matched, response.response.authenticatorData) };
      }
    },

    /**
     * Checks an assertion against the stored passkey it names: challenge, origin, RP id, user presence and
     * verification, signature, user handle, then the counter. Nothing is stored here.
     */
    async verifyAssertion(
      ceremony: Ceremony,
      response: AuthenticationInput,
      stored: StoredCredential,
    ): Promise<AssertionVerdict> {
      const handle = response.response.userHandle;
      if (handle !== undefined && handle !== '' && !sameSecret(handle, userHandleOf(stored.userId)))
        return { ok: false, reason: 'user_handle_mismatch' };
      const challenge = challengeCheck(ceremony);
      try {
        const result = await verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge.verify,
          expectedOrigin: origins,
          expectedRPID: rpId,
          requireUserVerification: true,
          // Counter 0 keeps the library from judging the counter: the comparison below decides, after the
          // signature proved the assertion is the credential's own (README, "Passkeys").
          credential: { id: stored.credentialId, publicKey: new Uint8Array(stored.publicKey), counter: 0 },
        });
        if (!result.verified) return { ok: false, reason: 'bad_signature' };
        const info = result.authenticationInfo;
        if (!info.userVerified) return { ok: false, reason: 'user_not_verified' };
        if (!counterAdvances(stored.signCount, info.newCounter))
          return {
            ok: false,
            reason: 'clone_suspected',
            stored: stored.signCount,
            presented: info.newCounter,
          };
        return { ok: true, presented: info.newCounter, backedUp: info.credentialBackedUp };
      } catch {
        return { ok: false, reason: refusalOf(challenge.matched, response.response.authenticatorData) };
      }
    },

    /** Stores a registered passkey (in the caller's transaction); null when the credential is registered already. */
    store: (
      tx: Queryable,
      userId: string,
      credential: Extract<RegistrationVerdict, { ok: true }>,
      name: string,
    ) => passkeyStore.insert(tx, { ...credential.credential, userId, name, now: now() }),

    /**
     * Stores a sign-in's counter in the session's transaction. Refused when another sign-in stored this counter
     * or a higher one first: the same assertion twice, or two authenticators with one key.
     */
    async advance(
      tx: Queryable,
      passkeyId: string,
      verdict: Extract<AssertionVerdict, { ok: true }>,
    ): Promise<CodeVerdict> {
      const advanced = await passkeyStore.advanceCounter(tx, passkeyId, {
        presented: verdict.presented,
        backedUp: verdict.backedUp,
        now: now(),
      });
      return advanced ? { ok: true } : { ok: false, reason: 'replayed' };
    },
  };
}

export type Passkeys = ReturnType<typeof createPasskeys>;

/**
 * Why the library refused a response, for the audit trail: its messages are not a contract, so the reason is
 * read from what the response itself shows (a challenge that did not match, the UV flag of the authenticator
 * data: bit 2 of byte 32), else it is a plain rejection (origin, RP id, malformed data).
 */
function refusalOf(challengeMatched: boolean | null, authenticatorData: string | undefined): PasskeyRefusal {
  if (challengeMatched === false) return 'challenge_mismatch';
  const flags = authenticatorData === undefined ? undefined : Buffer.from(authenticatorData, 'base64url')[32];
  if (flags !== undefined && (flags & 0x04) === 0) return 'user_not_verified';
  return 'rejected';
}
