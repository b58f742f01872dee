import type { Request } from 'express';
import {
  type Database,
  type PluginContext,
  SESSION_HEADER,
  type SessionIdentity,
} from '../../../../gateway/src/plugin-api.ts';
import { staffScope, type StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { staffScopeStore } from '../store/staff-scope-store.ts';

/** The staff routes' `authenticate` step, and the scope it found for each request it accepted. */
export interface StaffAuthentication {
  readonly authenticate: (req: Request) => Promise<void>;
  /** The caller's scope: only for a request `authenticate` accepted. */
  readonly scope: (req: Request) => StaffScope;
}

/**
 * Staff authentication for the staff API (README, "Staff API"). The identity is the one gate layer 2
 * verified or, while API_AUTH_MODE is `disabled` or `warn` and the gate established none, the forwarded
 * session verified here with the same verifier: the staff API always knows who calls, whatever the gate's
 * phase, because what a caller sees depends on it. The identity's roles are the session resolver's current
 * ones; the memberships are read for every request. It runs before validation, so a caller without a staff
 * session learns nothing about the request's shape.
 */
export function staffAuthentication(
  ctx: Pick<PluginContext<unknown>, 'sessions'>,
  db: Database,
): StaffAuthentication {
  const scopes = new WeakMap<Request, StaffScope>();
  return {
    authenticate: async (req) => {
      const identity = await verifiedIdentity(ctx, req);
      if (!identity) throw messagingErrors.create('messaging.staff.unauthenticated');
      scopes.set(req, staffScope(identity, await staffScopeStore.clustersOf(db, identity.sub)));
    },
    scope: (req) => scopes.get(req) as StaffScope,
  };
}

async function verifiedIdentity(
  ctx: Pick<PluginContext<unknown>, 'sessions'>,
  req: Request,
): Promise<SessionIdentity | null> {
  if (req.identity) return req.identity;
  const header = req.headers[SESSION_HEADER];
  const result = await ctx.sessions.verify(typeof header === 'string' ? header : undefined);
  return result.ok ? result.identity : null;
}
