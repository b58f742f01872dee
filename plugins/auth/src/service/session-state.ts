import type { Clock, Database, Logger, SessionIdentity } from '../../../../gateway/src/plugin-api.ts';
import { type AccountCache, createAccountCache } from './account-cache.ts';
import { createRevocationSet } from './revocations.ts';
import { startSessionSync } from './session-sync.ts';

/** Accounts whose current roles a replica keeps in memory (a few hundred bytes each). */
const ACCOUNT_CACHE_ENTRIES = 50_000;

/** What this replica knows about sessions, kept current from the database. */
export interface SessionState {
  /** The current roles and state of the accounts behind sessions (service/account-cache.ts). */
  accounts: AccountCache;
  /** False for one of the gateway's own sessions that was revoked; a token without a `sid` passes. */
  readonly notRevoked: (identity: SessionIdentity) => boolean;
  /** Stops the pruning and the LISTEN connection (at shutdown). */
  readonly stop: () => Promise<void>;
}

/**
 * The in-memory session state of a replica: the revoked session ids the gate refuses and the current roles
 * of accounts, both answered synchronously on every request and both kept current on one LISTEN connection
 * (service/session-sync.ts). A revoked session is refused on every replica at once, and a session carries
 * its account's current roles, not the ones copied into its token (plugins/auth/README.md, "Sessions and
 * current roles"). Fails, leaving nothing running, when the first connect or load fails: boot is refused.
 */
export async function startSessionState(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
}): Promise<SessionState> {
  const revocations = createRevocationSet({ db: deps.db, clock: deps.clock });
  const accounts = createAccountCache({ db: deps.db, maxEntries: ACCOUNT_CACHE_ENTRIES });
  const sync = await startSessionSync({ db: deps.db, logger: deps.logger, revocations, accounts }).catch(
    (err: unknown) => {
      revocations.stop();
      throw err;
    },
  );
  return {
    accounts,
    notRevoked: (identity) => identity.sid === null || !revocations.has(identity.sid),
    stop: async () => {
      revocations.stop();
      await sync.stop();
    },
  };
}
