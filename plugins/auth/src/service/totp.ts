import { generateSecret, generateURI, verify } from 'otplib';
import { renderSVG } from 'uqr';
import type { Clock } from '../../../../gateway/src/plugin-api.ts';
import type { TotpRow } from '../store/totp-store.ts';
import type { Sealed, SecretBox } from './secret-box.ts';

/** RFC 6238 as authenticator apps implement it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;
/** One step either side of now (README, "TOTP"): a clock that drifts by up to a step still works. */
const TOLERANCE_SECONDS = PERIOD_SECONDS;

/** What a new enrollment shows the user once, and what is stored. */
export interface TotpEnrollment {
  /** Base32, for typing into an app by hand. */
  secret: string;
  otpauthUri: string;
  /** The URI as a QR code, an SVG document. */
  qrCodeSvg: string;
  sealed: Sealed;
}

/**
 * TOTP codes (README, "TOTP"): new secrets, sealed at rest, and the check of a code against the injected clock.
 * The replay guard is the caller's: `check` says which time step a code belongs to, and the store accepts a step
 * only once, newer than the last.
 */
export function createTotp(deps: { box: SecretBox; clock: Clock; issuer: string }) {
  return {
    enroll(accountLabel: string): TotpEnrollment {
      const secret = generateSecret({ length: 20 });
      const otpauthUri = generateURI({ issuer: deps.issuer, label: accountLabel, secret });
      return {
        secret,
        otpauthUri,
        qrCodeSvg: renderSVG(otpauthUri, { border: 2 }),
        sealed: deps.box.seal(Buffer.from(secret, 'utf8')),
      };
    },

    /** The time step `code` was made for, within one step of now; null when it matches none. */
    async check(row: Pick<TotpRow, 'keyId' | 'secretSealed'>, code: string): Promise<number | null> {
      const secret = deps.box.open({ keyId: row.keyId, secret: row.secretSealed });
      if (!secret || !/^\d{6}$/.test(code)) return null;
      const result = await verify({
        secret: secret.toString('utf8'),
        token: code,
        epoch: Math.floor(deps.clock.now().getTime() / 1000),
        epochTolerance: TOLERANCE_SECONDS,
        period: PERIOD_SECONDS,
      });
      return result.valid && 'timeStep' in result ? result.timeStep : null;
    },
  };
}

export type Totp = ReturnType<typeof createTotp>;
