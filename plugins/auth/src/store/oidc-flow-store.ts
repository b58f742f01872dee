import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** What a browser's sign-in in progress keeps until its exchange (migrations/auth/0005). */
export interface OidcFlow {
  nonce: string;
  codeVerifier: string;
  returnTo: string;
}

/** Browser sign-ins in progress: created at start, taken once by the exchange. */
export const oidcFlowStore = {
  async create(
    db: Queryable,
    flow: OidcFlow & { stateHash: Buffer; browserHash: Buffer; now: Date; expiresAt: Date },
  ): Promise<void> {
    await db.query(
      `INSERT INTO auth_oidc_flows (state_hash, browser_hash, nonce, code_verifier, return_to, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        flow.stateHash,
        flow.browserHash,
        flow.nonce,
        flow.codeVerifier,
        flow.returnTo,
        flow.now,
        flow.expiresAt,
      ],
    );
  },

  /**
   * Takes the flow of this state started by this browser, unexpired: deleted by the statement that returns it,
   * so a state is used once however many exchanges race for it.
   */
  async take(db: Queryable, stateHash: Buffer, browserHash: Buffer, now: Date): Promise<OidcFlow | null> {
    const { rows } = await db.query<OidcFlow>(
      `DELETE FROM auth_oidc_flows WHERE state_hash = $1 AND browser_hash = $2 AND expires_at > $3
       RETURNING nonce, code_verifier AS "codeVerifier", return_to AS "returnTo"`,
      [stateHash, browserHash, now],
    );
    return rows[0] ?? null;
  },

  /** Deletes flows that expired unused (abandoned sign-ins). */
  async sweep(db: Queryable, now: Date): Promise<number> {
    const { rowCount } = await db.query('DELETE FROM auth_oidc_flows WHERE expires_at <= $1', [now]);
    return rowCount ?? 0;
  },
};
