import { type Database, listen, type Listener, type Logger } from '../../../../gateway/src/plugin-api.ts';
import { REVOKED_CHANNEL } from '../store/session-store.ts';
import { ACCOUNT_CHANGED_CHANNEL } from '../store/user-store.ts';
import type { AccountCache } from './account-cache.ts';
import type { RevocationSet } from './revocations.ts';

/**
 * Keeps this replica's session state current from the database, on one LISTEN connection: revoked
 * session ids (`auth_session_revoked`) and changed accounts (`auth_account_changed`, migrations/auth/0003).
 *
 * A lost connection could miss notifications, so after every (re)connect, once LISTEN is in place, the
 * revocations are read again and every cached account is dropped (each is read again on its next
 * request). Until the first connect and load succeed, start fails and the gateway refuses boot.
 */
export function startSessionSync(deps: {
  db: Database;
  logger: Logger;
  revocations: RevocationSet;
  accounts: AccountCache;
}): Promise<Listener> {
  return listen({
    db: deps.db,
    logger: deps.logger,
    channels: [REVOKED_CHANNEL, ACCOUNT_CHANGED_CHANNEL],
    onNotify: (channel, payload) => {
      if (channel === REVOKED_CHANNEL) {
        if (payload) deps.revocations.add(payload);
      } else {
        deps.accounts.invalidate(payload === '' ? null : payload);
      }
    },
    onConnected: async () => {
      deps.accounts.setListening(true);
      await deps.revocations.reload();
    },
    // While disconnected no change can be heard of: accounts are read per request until LISTEN is back.
    onDisconnected: () => deps.accounts.setListening(false),
  });
}
