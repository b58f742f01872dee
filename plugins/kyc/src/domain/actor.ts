import type { AuditWriter } from '../../../../gateway/src/plugin-api.ts';

/** Who made a change, for the audit row: `cli` or the staff member's user id. */
export interface Actor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}

/** The audit row of a change `who` made. */
export function auditRecord(
  who: Actor,
  kind: string,
  payload: Record<string, unknown>,
): Parameters<AuditWriter['write']>[0] {
  return { kind, actor: who.actor, requestId: who.requestId ?? null, ip: who.ip ?? null, payload };
}
