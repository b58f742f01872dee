import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** What second factors an account has (README, "Second factors"). */
export interface FactorState {
  /** A confirmed TOTP enrollment. */
  totp: boolean;
  passkeys: number;
  /** Unused recovery codes. */
  recoveryCodes: number;
  /** An administrator reset its TOTP: it enrolls again at its next password sign-in. */
  enrollmentRequired: boolean;
}

export const factorStore = {
  async state(db: Queryable, userId: string): Promise<FactorState> {
    const { rows } = await db.query<FactorState>(
      `SELECT EXISTS (SELECT 1 FROM auth_totp t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL) AS totp,
              (SELECT count(*)::int FROM auth_passkeys p WHERE p.user_id = u.id) AS passkeys,
              (SELECT count(*)::int FROM auth_recovery_codes r WHERE r.user_id = u.id AND r.used_at IS NULL)
                AS "recoveryCodes",
              u.factor_enrollment_required AS "enrollmentRequired"
         FROM auth_users u WHERE u.id = $1`,
      [userId],
    );
    return rows[0] ?? { totp: false, passkeys: 0, recoveryCodes: 0, enrollmentRequired: false };
  },

  async setEnrollmentRequired(db: Queryable, userId: string, required: boolean): Promise<void> {
    await db.query(
      'UPDATE auth_users SET factor_enrollment_required = $2 WHERE id = $1 AND factor_enrollment_required <> $2',
      [userId, required],
    );
  },

  /** Records that the session proved a second factor now (sign-in or step-up). */
  async markSessionVerified(db: Queryable, sessionId: string, now: Date): Promise<void> {
    await db.query('UPDATE auth_sessions SET factor_verified_at = $2 WHERE id = $1', [sessionId, now]);
  },

  /** When the session last proved a second factor; null if never (or it is not a live session). */
  async sessionVerifiedAt(db: Queryable, sessionId: string): Promise<Date | null> {
    const { rows } = await db.query<{ at: Date | null }>(
      'SELECT factor_verified_at AS at FROM auth_sessions WHERE id = $1 AND revoked_at IS NULL',
      [sessionId],
    );
    return rows[0]?.at ?? null;
  },

  /**
   * The break-glass readiness of the deployment (README, "Break-glass"): live wildcard admins, and those of them
   * who could sign in while the identity provider is down (a passkey, or a password and a confirmed TOTP).
   */
  async adminReadiness(db: Queryable): Promise<{ admins: number; readyBreakGlass: number }> {
    const { rows } = await db.query<{ admins: number; readyBreakGlass: number }>(
      `SELECT count(*)::int AS admins,
              count(*) FILTER (WHERE EXISTS (SELECT 1 FROM auth_passkeys p WHERE p.user_id = u.id)
                OR (u.password_hash IS NOT NULL AND EXISTS (
                  SELECT 1 FROM auth_totp t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL)))::int
                AS "readyBreakGlass"
         FROM auth_users u JOIN auth_user_roles r ON r.user_id = u.id AND r.role = '*'
        WHERE u.disabled_at IS NULL`,
    );
    return rows[0] ?? { admins: 0, readyBreakGlass: 0 };
  },
};
