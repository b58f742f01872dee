import type { Request } from 'express';
import {
  type PluginContext,
  SESSION_HEADER,
  type SessionIdentity,
} from '../../../../gateway/src/plugin-api.ts';
import { kycErrors } from '../errors.ts';
import type { Actor } from '../domain/actor.ts';

const KYC_ADMIN_ROLES = ['*', 'kyc:admin'];

/**
 * Who is calling an admin route: the identity gate layer 2 verified, or (while API_AUTH_MODE is
 * `disabled` or `warn` and the gate did not establish one) the forwarded session verified here. Admin
 * actions always need a verified staff identity holding `kyc:admin` or the wildcard admin role,
 * whatever the gate's phase. Both come resolved by the core (`ctx.hooks.sessionResolver`): for the
 * gateway's own sessions the roles are the account's current ones, never the copy in the token.
 */
export async function requireKycAdmin(
  ctx: Pick<PluginContext<unknown>, 'sessions'>,
  req: Request,
): Promise<SessionIdentity> {
  let identity = req.identity;
  if (!identity) {
    const header = req.headers[SESSION_HEADER];
    const result = await ctx.sessions.verify(typeof header === 'string' ? header : undefined);
    if (result.ok) identity = result.identity;
  }
  if (!identity) throw kycErrors.create('kyc.admin.unauthenticated');
  if (!identity.roles.some((role) => KYC_ADMIN_ROLES.includes(role))) throw kycErrors.create('kyc.forbidden');
  return identity;
}

/** The admin routes' `authenticate` step, and the staff member it found for the audit rows. */
export interface StaffAuthentication {
  readonly authenticate: (req: Request) => Promise<void>;
  /** Who called: only for a request `authenticate` accepted. */
  readonly actor: (req: Request) => Actor;
}

/**
 * Staff authentication for a group of admin routes. It runs before validation, like the tenant routes' API
 * key: a caller without a staff session learns nothing about the request's shape.
 */
export function staffAuthentication(ctx: Pick<PluginContext<unknown>, 'sessions'>): StaffAuthentication {
  const staff = new WeakMap<Request, Actor>();
  return {
    authenticate: async (req) => {
      const identity = await requireKycAdmin(ctx, req);
      staff.set(req, { actor: identity.sub, requestId: req.gatehouse.id, ip: req.ip ?? null });
    },
    actor: (req) => staff.get(req) as Actor,
  };
}
