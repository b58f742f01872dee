import type { AuditWriter, Clock, Database, Queryable } from '../../../../../gateway/src/plugin-api.ts';
import type { Locations } from '../../domain/scim/render.ts';
import { authErrors } from '../../errors.ts';
import { isUniqueViolation, SCIM_USER_CONSTRAINTS } from '../../store/scim-user-store.ts';
import type { AccountCache } from '../account-cache.ts';

/** What the SCIM services need. */
export interface ScimDeps {
  db: Database;
  clock: Clock;
  audit: AuditWriter;
  accounts: Pick<AccountCache, 'invalidate'>;
  /** SCIM_GROUP_ROLES: group displayName → gateway role. */
  groupRoles: Readonly<Record<string, string>>;
  locations: Locations;
}

/** Who makes a SCIM change: the token (never its value) and the request. */
export interface ScimCaller {
  tokenId: string;
  tokenName: string;
  requestId: string;
  ip: string | null;
}

/**
 * What a SCIM transaction changed, acted on once it has committed: audit rows (a rolled-back change is not
 * audited) and the accounts this replica must forget at once (the others hear it from the database).
 */
export class ScimChanges {
  readonly #events: Array<{ kind: string; payload: Record<string, unknown> }> = [];
  readonly #accounts = new Set<string>();

  event(kind: string, payload: Record<string, unknown>): void {
    this.#events.push({ kind, payload });
  }

  account(userId: string): void {
    this.#accounts.add(userId);
  }

  /** Writes the audit rows as the caller's and drops the changed accounts from this replica's memory. */
  committed(deps: Pick<ScimDeps, 'audit' | 'accounts'>, caller: ScimCaller): void {
    for (const userId of this.#accounts) deps.accounts.invalidate(userId);
    for (const { kind, payload } of this.#events) {
      deps.audit.writeLater({
        kind,
        actor: `scim:${caller.tokenName}`,
        requestId: caller.requestId,
        ip: caller.ip,
        payload: { ...payload, tokenId: caller.tokenId },
      });
    }
  }
}

/**
 * Runs a SCIM write in one transaction and, once it committed, acts on its changes. A unique index that
 * refuses the write (a userName or email taken by a concurrent request) is 409 uniqueness, like the checks
 * made before writing.
 */
export async function scimTransaction<T>(
  deps: Pick<ScimDeps, 'db' | 'audit' | 'accounts'>,
  caller: ScimCaller,
  work: (tx: Queryable, changes: ScimChanges) => Promise<T>,
): Promise<T> {
  const changes = new ScimChanges();
  let result: T;
  try {
    result = await deps.db.transaction((tx) => work(tx, changes));
  } catch (err) {
    if (isUniqueViolation(err, SCIM_USER_CONSTRAINTS.userName)) throw uniqueness('userName');
    if (isUniqueViolation(err, SCIM_USER_CONSTRAINTS.email)) throw uniqueness('email');
    throw err;
  }
  changes.committed(deps, caller);
  return result;
}

/** 409 uniqueness: the userName, or the email address, belongs to another account. */
export function uniqueness(what: 'userName' | 'email') {
  return authErrors.create('auth.scim.uniqueness', {
    detail:
      what === 'userName'
        ? 'Another user has this userName'
        : 'Another account has this email address (one not managed by SCIM, or another SCIM user)',
  });
}

export function notFound(what: 'User' | 'Group') {
  return authErrors.create('auth.scim.not_found', { detail: `No ${what} with this id` });
}
