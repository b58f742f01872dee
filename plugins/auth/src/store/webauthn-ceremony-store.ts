import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** Why a WebAuthn ceremony was begun (migrations/auth/0007). */
export type CeremonyPurpose = 'register' | 'sign-in' | 'step-up';

/** A ceremony between its begin and its finish. */
export interface Ceremony {
  purpose: CeremonyPurpose;
  challenge: string;
  /** The account it is for; null for a usernameless sign-in. */
  userId: string | null;
  /** The pending password sign-in it continues (a passkey as its second step, or its enrollment). */
  pendingHash: Buffer | null;
  /** The name a registration's begin gave the new passkey. */
  passkeyName: string | null;
}

/** The WebAuthn ceremonies in progress (migrations/auth/0007, 0008): single use, short-lived. */
export const webauthnCeremonyStore = {
  async create(
    db: Queryable,
    row: Ceremony & { tokenHash: Buffer; now: Date; ttlSeconds: number },
  ): Promise<Date> {
    const expiresAt = new Date(row.now.getTime() + row.ttlSeconds * 1000);
    await db.query(
      `INSERT INTO auth_webauthn_ceremonies
         (token_hash, purpose, challenge, user_id, pending_hash, passkey_name, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        row.tokenHash,
        row.purpose,
        row.challenge,
        row.userId,
        row.pendingHash,
        row.passkeyName,
        row.now,
        expiresAt,
      ],
    );
    return expiresAt;
  },

  /**
   * Takes the ceremony of a token for one of `purposes`: deletes it and returns it, so of any number of finishes
   * presenting one token exactly one gets it. Null when it is unknown, used, of another purpose or expired.
   */
  async take(
    db: Queryable,
    tokenHash: Buffer,
    purposes: readonly CeremonyPurpose[],
    now: Date,
  ): Promise<Ceremony | null> {
    const { rows } = await db.query<Ceremony & { expiresAt: Date }>(
      `DELETE FROM auth_webauthn_ceremonies WHERE token_hash = $1 AND purpose = ANY($2::text[])
       RETURNING purpose, challenge, user_id AS "userId", pending_hash AS "pendingHash",
                 passkey_name AS "passkeyName", expires_at AS "expiresAt"`,
      [tokenHash, purposes],
    );
    const row = rows[0];
    if (!row || row.expiresAt.getTime() <= now.getTime()) return null;
    const { expiresAt: _expiresAt, ...ceremony } = row;
    return ceremony;
  },

  /** Ceremonies begun and never finished. */
  async sweep(db: Queryable, now: Date): Promise<number> {
    const { rowCount } = await db.query('DELETE FROM auth_webauthn_ceremonies WHERE expires_at <= $1', [now]);
    return rowCount ?? 0;
  },
};
