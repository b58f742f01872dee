import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** Removing every passkey of an account at once (the server-side factor reset); the passkey store does the rest. */
export const passkeyRemoval = {
  async removeAll(db: Queryable, userId: string): Promise<number> {
    const { rowCount } = await db.query('DELETE FROM auth_passkeys WHERE user_id = $1', [userId]);
    return rowCount ?? 0;
  },
};
