import type { Request, Response } from 'express';
import {
  type AuditWriter,
  type Database,
  type PluginContext,
  SESSION_HEADER,
  type SessionIdentity,
} from '../../../../gateway/src/plugin-api.ts';
import { isStaffId, staffScope, type StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { staffScopeStore } from '../store/staff-scope-store.ts';

/** The staff routes' `authenticate` step, and the scope it found for each request it accepted. */
export interface StaffAuthentication {
  readonly authenticate: (req: Request, res: Response) => Promise<void>;
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
  ctx: Pick<PluginContext<unknown>, 'sessions' | 'audit'>,
  db: Database,
): StaffAuthentication {
  const scopes = new WeakMap<Request, StaffScope>();
  return {
    authenticate: async (req, res) => {
      const identity = await verifiedIdentity(ctx, req);
      // A session whose subject cannot be stored as a staff member (a dashboard's token says what it likes) is no
      // staff session: refused here rather than by a database constraint at the first write.
      if (!identity || !isStaffId(identity.sub))
        throw messagingErrors.create('messaging.staff.unauthenticated');
      scopes.set(req, staffScope(identity, await staffScopeStore.clustersOf(db, identity.sub)));
      if (WRITE_METHODS.has(req.method)) auditWhenDone(ctx.audit, req, res, identity.sub);
    },
    scope: (req) => scopes.get(req) as StaffScope,
  };
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every change a staff member makes through the staff API leaves a `messaging.staff.write` audit row naming
 * them, whatever API_AUTH_MODE is (the gate's own `api.access.sensitive` rows are not written while it is
 * `disabled`, and carry no actor when the gate did not verify the session). The row says who, which route
 * and which records (the path's ids) — never the body, which holds contacts' personal data and message texts.
 * Written once the answer is sent, and only for a change that happened (a 2xx or 3xx).
 */
function auditWhenDone(
  audit: Pick<AuditWriter, 'writeLater'>,
  req: Request,
  res: Response,
  actor: string,
): void {
  res.once('finish', () => {
    if (res.statusCode >= 400) return;
    audit.writeLater({
      kind: 'messaging.staff.write',
      actor,
      requestId: req.gatehouse.id,
      ip: req.ip ?? null,
      payload: {
        method: req.method,
        route: req.gatehouse.route?.pattern ?? null,
        ids: req.params,
        status: res.statusCode,
      },
    });
  });
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
