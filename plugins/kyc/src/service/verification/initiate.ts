import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { InitiateRequest, VerificationView } from '../../domain/api-schemas.ts';
import { periodOf } from '../../domain/quota-period.ts';
import { VERIFICATION_TTL_MS } from '../../domain/state-machine.ts';
import { kycErrors } from '../../errors.ts';
import { idempotencyStore } from '../../store/idempotency-store.ts';
import type { KeyWithTenant } from '../../store/key-store.ts';
import { quotaStore } from '../../store/quota-store.ts';
import { tenantStore } from '../../store/tenant-store.ts';
import { verificationStore, type VerificationRow } from '../../store/verification-store.ts';
import type { VerificationDeps } from './transition.ts';

/** How long an Idempotency-Key answers with its first response (README, "Idempotency"). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What a tenant asks for: the request, with the key that authenticated it and its Idempotency-Key. */
export interface InitiateInput {
  key: KeyWithTenant;
  request: InitiateRequest;
  idempotencyKey: string | undefined;
}

export interface InitiateResult {
  status: number;
  body: VerificationView;
  /** True when an Idempotency-Key replayed an earlier response. */
  replayed: boolean;
}

type Tenant = KeyWithTenant['tenant'];

/**
 * Starts a verification for a tenant (README, "Quota" and "Idempotency"). A live tenant's initiation takes
 * one unit of quota in the transaction that creates the verification, so parallel requests never overspend;
 * an Idempotency-Key is claimed in the same transaction, so concurrent duplicates make one verification and
 * a refused request leaves the key free.
 */
export async function initiateVerification(
  deps: Pick<VerificationDeps, 'db' | 'clock'>,
  input: InitiateInput,
): Promise<InitiateResult> {
  const { tenant } = input.key;
  const now = deps.clock.now();
  const requestHash = requestHashOf(input.request);
  const create = (on: Pick<pg.PoolClient, 'query'>, billable: boolean) =>
    createVerification(on, { tenant, request: input.request, billable, now });
  // Nothing else to keep consistent (no quota, no idempotency record): one statement, no transaction.
  if (tenant.sandbox && input.idempotencyKey === undefined) {
    return { status: 201, body: await create(deps.db.pool, false), replayed: false };
  }
  return deps.db.transaction(async (tx) => {
    const claim = { tenantId: tenant.id, key: input.idempotencyKey, requestHash, now };
    const earlier = await claimIdempotencyKey(tx, claim);
    if (earlier) return earlier;
    const billable = !tenant.sandbox;
    if (billable) await consumeQuota(tx, tenant, now);
    const body = await create(tx, billable);
    if (input.idempotencyKey !== undefined) {
      await idempotencyStore.complete(tx, tenant.id, input.idempotencyKey, 201, body);
    }
    return { status: 201, body, replayed: false };
  });
}

/** What the Idempotency-Key's first use is compared with: the request's type and subject. */
function requestHashOf(request: InitiateRequest): Buffer {
  return createHash('sha256')
    .update(JSON.stringify([request.type, request.subjectExternalRef]))
    .digest();
}

/**
 * Claims the Idempotency-Key for this request. Null: there is none, or this request now owns it. Otherwise
 * the key was used before: the earlier response to replay, or 422 when that use had another body.
 */
async function claimIdempotencyKey(
  tx: pg.PoolClient,
  claim: { tenantId: string; key: string | undefined; requestHash: Buffer; now: Date },
): Promise<InitiateResult | null> {
  if (claim.key === undefined) return null;
  const claimed = await idempotencyStore.claim(tx, {
    tenantId: claim.tenantId,
    key: claim.key,
    requestHash: claim.requestHash,
    now: claim.now,
    expiresAt: new Date(claim.now.getTime() + IDEMPOTENCY_TTL_MS),
  });
  if (claimed) return null;
  const earlier = await idempotencyStore.find(tx, claim.tenantId, claim.key);
  if (!earlier || !earlier.requestHash.equals(claim.requestHash)) {
    throw kycErrors.create('kyc.idempotency_mismatch');
  }
  return { status: earlier.status ?? 201, body: earlier.body as VerificationView, replayed: true };
}

/** Takes one unit of a live tenant's quota for the current period; 402 when it is used up. */
async function consumeQuota(tx: pg.PoolClient, tenant: Tenant, now: Date): Promise<void> {
  const current = await tenantStore.findById(tx, tenant.id);
  if (!current) throw kycErrors.create('kyc.api_key.invalid');
  const period = periodOf(current.quotaPeriod, now);
  if (!(await quotaStore.consume(tx, tenant.id, period.start, current.quotaLimit))) {
    throw kycErrors.create('kyc.quota_exhausted', {
      detail: `The quota of ${current.quotaLimit} billable verifications per ${current.quotaPeriod} is used up.`,
    });
  }
}

/** The verification and its first history entry, in one statement; the view is built from the row. */
async function createVerification(
  on: Pick<pg.PoolClient, 'query'>,
  what: { tenant: Tenant; request: InitiateRequest; billable: boolean; now: Date },
): Promise<VerificationView> {
  const { tenant, request, now } = what;
  const row = await verificationStore.insertInitiated(on, {
    tenantId: tenant.id,
    type: request.type,
    subjectExternalRef: request.subjectExternalRef,
    sandbox: tenant.sandbox,
    provider: tenant.provider,
    billable: what.billable,
    // The provider's first step is due at once; the worker takes it from here.
    nextCheckAt: now,
    expiresAt: new Date(now.getTime() + VERIFICATION_TTL_MS),
    createdAt: now,
  });
  return initialView(row);
}

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
