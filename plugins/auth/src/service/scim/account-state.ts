import type { Queryable } from '../../../../../gateway/src/plugin-api.ts';
import { sessionStore } from '../../store/session-store.ts';
import { scimUserStore } from '../../store/scim-user-store.ts';
import type { ScimChanges } from './scim-context.ts';

/** Why SCIM ended a user's sessions, as the sessions' `revoked_reason` and the audit say it. */
export const SCIM_DEACTIVATED = 'scim deactivated';

/** The account state `active` acts on. */
export interface AccountState {
  userId: string;
  disabledAt: Date | null;
  /** Whether the account is disabled because SCIM deactivated it (only then may SCIM enable it again). */
  disabledByScim: boolean;
}

/**
 * Makes the account follow SCIM's `active`, inside the caller's transaction; returns the new `disabledByScim`.
 *
 * Deactivating disables the account (unless it is disabled already) and revokes every session of the user, web
 * and device, in the same transaction, so from its commit the gate refuses them on every replica. Activating
 * enables the account only when SCIM disabled it: an account an admin disabled stays disabled whatever the
 * directory says (docs/adr/0014-scim-provisioning.md).
 */
export async function applyActive(
  tx: Queryable,
  state: AccountState,
  active: boolean,
  now: Date,
  changes: ScimChanges,
): Promise<{ disabledByScim: boolean; revokedSessions: number; enabled: boolean }> {
  changes.account(state.userId);
  if (!active) {
    const disabling = state.disabledAt === null;
    if (disabling) await scimUserStore.setAccountDisabled(tx, state.userId, now);
    const revokedSessions = await sessionStore.revokeAllForUser(tx, state.userId, SCIM_DEACTIVATED);
    if (revokedSessions > 0) {
      changes.event('auth.session.revoked', {
        userId: state.userId,
        reason: SCIM_DEACTIVATED,
        count: revokedSessions,
      });
    }
    return { disabledByScim: disabling || state.disabledByScim, revokedSessions, enabled: false };
  }
  if (!state.disabledByScim) return { disabledByScim: false, revokedSessions: 0, enabled: false };
  await scimUserStore.setAccountDisabled(tx, state.userId, null);
  return { disabledByScim: false, revokedSessions: 0, enabled: true };
}
