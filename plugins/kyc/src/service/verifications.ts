import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import type { InitiateRequest, VerificationView } from '../domain/api-schemas.ts';
import { periodOf } from '../domain/quota-period.ts';
import {
  assertTransition,
  canTransition,
  isTerminal,
  VERIFICATION_TTL_MS,
  type Decision,
  type VerificationStatus,
} from '../domain/state-machine.ts';
import { kycErrors } from '../errors.ts';
import type { ProviderStep, VerificationProvider } from '../providers/provider.ts';
import { idempotencyStore } from '../store/idempotency-store.ts';
import type { KeyWithTenant } from '../store/key-store.ts';
import { quotaStore } from '../store/quota-store.ts';
import { tenantStore } from '../store/tenant-store.ts';
import { verificationStore, type VerificationRow } from '../store/verification-store.ts';
import { VERIFICATION_CHANNEL, type VerificationCache } from './verification-cache.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** One change of status, committed with the transaction that made it. */
export interface StatusChange {
  verification: VerificationRow;
  from: VerificationStatus;
  to: VerificationStatus;
  reason: string | null;
  actor: string;
  at: Date;
}

/** Runs inside the transaction of a status change (the webhook outbox enqueues here). */
export type StatusChangeListener = (tx: pg.PoolClient, change: StatusChange) => Promise<void>;

export interface InitiateResult {
  status: number;
  body: VerificationView;
  /** True when an Idempotency-Key replayed an earlier response. */
  replayed: boolean;
}

/**
 * The verification lifecycle (issue 5, points 2-5): initiation with quota and idempotency, reads, and
 * every change of status, each validated by the state machine and recorded in the history.
 */
export function createVerificationService(deps: {
  db: Database;
  clock: Clock;
  providers: ReadonlyMap<string, VerificationProvider>;
  onStatusChange: readonly StatusChangeListener[];
  cache: VerificationCache;
}) {
  const { db, clock } = deps;
  /** Runs `work` in a transaction; the verifications it changed leave this replica's cache on commit. */
  const changing = async <T>(work: (tx: pg.PoolClient, changed: string[]) => Promise<T>): Promise<T> => {
    const changed: string[] = [];
    const result = await db.transaction((tx) => work(tx, changed));
    for (const id of changed) deps.cache.invalidate(id);
    return result;
  };

  /** Applies one transition to a locked row: state machine, row, history, listeners, NOTIFY. */
  const transition = async (
    tx: pg.PoolClient,
    row: VerificationRow,
    to: VerificationStatus,
    options: { reason: string | null; actor: string; nextCheckAt: Date | null },
  ): Promise<VerificationRow> => {
    assertTransition(row.status, to);
    const at = clock.now();
    const decided = to === 'approved' || to === 'rejected' || to === 'needs_review';
    await verificationStore.update(tx, row.id, {
      status: to,
      decisionReason: decided ? options.reason : null,
      decidedAt: isTerminal(to) || to === 'needs_review' ? at : null,
      nextCheckAt: isTerminal(to) ? null : options.nextCheckAt,
      at,
    });
    await verificationStore.addEvent(tx, {
      verificationId: row.id,
      from: row.status,
      to,
      reason: options.reason,
      actor: options.actor,
      at,
    });
    const after: VerificationRow = {
      ...row,
      status: to,
      decisionReason: decided ? options.reason : row.decisionReason,
      updatedAt: at,
    };
    for (const listener of deps.onStatusChange) {
      await listener(tx, {
        verification: after,
        from: row.status,
        to,
        reason: options.reason,
        actor: options.actor,
        at,
      });
    }
    await tx.query(`SELECT pg_notify('${VERIFICATION_CHANNEL}', $1)`, [row.id]);
    return after;
  };

  /** Applies what a provider answered: a transition, or only the time of its next check. */
  const applyStep = async (tx: pg.PoolClient, row: VerificationRow, step: ProviderStep) => {
    if (step.to === undefined || step.to === row.status) {
      await tx.query('UPDATE kyc_verifications SET next_check_at = $2 WHERE id = $1', [
        row.id,
        step.nextCheckAt,
      ]);
      return row;
    }
    return transition(tx, row, step.to, {
      reason: step.reason ?? null,
      actor: `provider:${row.provider}`,
      nextCheckAt: step.nextCheckAt,
    });
  };

  return {
    async initiate(input: {
      key: KeyWithTenant;
      request: InitiateRequest;
      idempotencyKey: string | undefined;
    }): Promise<InitiateResult> {
      const { tenant } = input.key;
      const now = clock.now();
      const requestHash = createHash('sha256')
        .update(JSON.stringify([input.request.type, input.request.subjectExternalRef]))
        .digest();
      /** The verification and its first history entry, in one statement; the view is built from the row. */
      const create = async (on: Pick<pg.PoolClient, 'query'>, billable: boolean) =>
        initialView(
          await verificationStore.insertInitiated(on, {
            tenantId: tenant.id,
            type: input.request.type,
            subjectExternalRef: input.request.subjectExternalRef,
            sandbox: tenant.sandbox,
            provider: tenant.provider,
            billable,
            // The provider's first step is due at once; the worker takes it from here.
            nextCheckAt: now,
            expiresAt: new Date(now.getTime() + VERIFICATION_TTL_MS),
            createdAt: now,
          }),
        );
      // Nothing else to keep consistent (no quota, no idempotency record): one statement, no transaction.
      if (tenant.sandbox && input.idempotencyKey === undefined) {
        return { status: 201, body: await create(db.pool, false), replayed: false };
      }
      return db.transaction(async (tx) => {
        if (input.idempotencyKey !== undefined) {
          const claimed = await idempotencyStore.claim(tx, {
            tenantId: tenant.id,
            key: input.idempotencyKey,
            requestHash,
            now,
            expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
          });
          if (!claimed) {
            const earlier = await idempotencyStore.find(tx, tenant.id, input.idempotencyKey);
            if (!earlier || !earlier.requestHash.equals(requestHash)) {
              throw kycErrors.create('kyc.idempotency_mismatch');
            }
            return { status: earlier.status ?? 201, body: earlier.body as VerificationView, replayed: true };
          }
        }
        let billable = false;
        if (!tenant.sandbox) {
          const current = await tenantStore.findById(tx, tenant.id);
          if (!current) throw kycErrors.create('kyc.api_key.invalid');
          const period = periodOf(current.quotaPeriod, now);
          if (!(await quotaStore.consume(tx, tenant.id, period.start, current.quotaLimit))) {
            throw kycErrors.create('kyc.quota_exhausted', {
              detail: `The quota of ${current.quotaLimit} billable verifications per ${current.quotaPeriod} is used up.`,
            });
          }
          billable = true;
        }
        const body = await create(tx, billable);
        if (input.idempotencyKey !== undefined) {
          await idempotencyStore.complete(tx, tenant.id, input.idempotencyKey, 201, body);
        }
        return { status: 201, body, replayed: false };
      });
    },

    /** A tenant's verification; another tenant's is "not found", never "forbidden" (no existence oracle). */
    async get(tenantId: string, id: string): Promise<VerificationView> {
      const json = await this.getJson(tenantId, id);
      return JSON.parse(json) as VerificationView;
    },

    /** The same, serialized: what the status route sends, from the cache when it is current. */
    async getJson(tenantId: string, id: string): Promise<string> {
      const json = await deps.cache.read(tenantId, id, async () => {
        const view = await verificationStore.view(db.pool, tenantId, id);
        return view ? JSON.stringify(view) : null;
      });
      if (json === null) throw kycErrors.create('kyc.verification.not_found');
      return json;
    },

    /** A reviewer's (or a provider callback's) decision. */
    async decide(
      id: string,
      decision: Decision,
      options: { reason: string; actor: string },
    ): Promise<VerificationView> {
      await changing(async (tx, changed) => {
        const row = await verificationStore.lock(tx, id);
        if (!row) throw kycErrors.create('kyc.verification.not_found');
        if (!canTransition(row.status, decision)) {
          throw kycErrors.create('kyc.invalid_transition', {
            detail: `The verification is ${row.status}; it cannot become ${decision}.`,
            extensions: { from: row.status, to: decision },
          });
        }
        await transition(tx, row, decision, {
          reason: options.reason,
          actor: options.actor,
          nextCheckAt: null,
        });
        changed.push(id);
      });
      return (await verificationStore.viewById(db.pool, id)) as VerificationView;
    },

    /** One worker pass over due provider steps; returns how many verifications it moved on. */
    async runDueSteps(limit = 20): Promise<number> {
      return changing(async (tx, changed) => {
        const due = await verificationStore.lockDue(tx, clock.now(), limit);
        for (const row of due) {
          const provider = deps.providers.get(row.provider);
          if (!provider) {
            await tx.query('UPDATE kyc_verifications SET next_check_at = NULL WHERE id = $1', [row.id]);
            continue;
          }
          const now = clock.now();
          const step =
            row.status === 'pending' ? await provider.start(row, now) : await provider.poll(row, now);
          await applyStep(tx, row, step);
          changed.push(row.id);
        }
        return due.length;
      });
    },

    /** Expires open verifications older than 7 days; returns how many. */
    async expireOverdue(limit = 100): Promise<number> {
      return changing(async (tx, changed) => {
        const overdue = await verificationStore.lockExpired(tx, clock.now(), limit);
        for (const row of overdue) {
          await transition(tx, row, 'expired', {
            reason: 'not decided within 7 days',
            actor: 'system',
            nextCheckAt: null,
          });
          changed.push(row.id);
        }
        return overdue.length;
      });
    },
  };
}

export type VerificationService = ReturnType<typeof createVerificationService>;

/** The view of a verification just initiated (what the status route would answer for it). */
function initialView(row: VerificationRow): VerificationView {
  const createdAt = row.createdAt.toISOString();
  return {
    id: row.id,
    type: row.type,
    subjectExternalRef: row.subjectExternalRef,
    status: row.status,
    sandbox: row.sandbox,
    decisionReason: null,
    createdAt,
    updatedAt: row.updatedAt.toISOString(),
    decidedAt: null,
    expiresAt: row.expiresAt.toISOString(),
    history: [{ from: null, to: 'pending', reason: 'initiated', at: createdAt }],
  };
}
