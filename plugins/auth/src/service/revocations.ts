import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { sessionStore } from '../store/session-store.ts';

export interface RevocationSet {
  /** True when the session id was revoked (checked synchronously on every gated request). */
  has(sid: string): boolean;
  /** A revocation announced by a replica (the `auth_session_revoked` notification). */
  add(sid: string): void;
  /** Reads every revoked, unexpired session again: notifications sent while disconnected are lost. */
  reload(): Promise<void>;
  stop(): void;
}

/**
 * The revoked session ids this replica refuses, kept in memory so the gate's check costs a Set lookup
 * instead of a query per request. It is filled from the table and kept current through the
 * `auth_session_revoked` notification that every revocation sends on commit (service/session-sync.ts):
 * a session revoked on any replica is refused on all of them at once.
 */
export function createRevocationSet(deps: { db: Database; clock: Clock }): RevocationSet {
  /** sid → epoch ms after which its token has expired anyway and the entry can go. */
  const revoked = new Map<string, number>();
  const prune = setInterval(() => {
    const now = deps.clock.nowMs();
    for (const [sid, until] of revoked) if (until < now) revoked.delete(sid);
  }, 60_000);
  prune.unref();

  return {
    has: (sid) => revoked.has(sid),
    // The token's own exp bounds how long the entry matters; a day covers any session length.
    add: (sid) => void revoked.set(sid, deps.clock.nowMs() + 86_400_000),
    async reload() {
      for (const row of await sessionStore.revokedAndLive(deps.db.pool, deps.clock.now()))
        revoked.set(row.id, row.expiresAt.getTime());
    },
    stop: () => clearInterval(prune),
  };
}
