import type { VerificationView } from '../../domain/api-schemas.ts';
import type { Decision } from '../../domain/state-machine.ts';
import { decideVerification } from './decide.ts';
import { expireOverdue } from './expire.ts';
import { initiateVerification, type InitiateInput, type InitiateResult } from './initiate.ts';
import { runDueSteps } from './provider-steps.ts';
import { readVerificationJson } from './read.ts';
import type { VerificationDeps } from './transition.ts';

/**
 * The verification lifecycle (README, "Statuses"): initiation with quota and idempotency (initiate.ts),
 * reads (read.ts), a reviewer's decision (decide.ts), and the worker's provider steps and expiries
 * (provider-steps.ts, expire.ts). Every change of status goes through one transition (transition.ts),
 * validated by the state machine and recorded in the history.
 */
export function createVerificationService(deps: VerificationDeps) {
  return {
    initiate: (input: InitiateInput): Promise<InitiateResult> => initiateVerification(deps, input),

    /** A tenant's verification; another tenant's is "not found", never "forbidden" (no existence oracle). */
    async get(tenantId: string, id: string): Promise<VerificationView> {
      return JSON.parse(await readVerificationJson(deps, tenantId, id)) as VerificationView;
    },

    /** The same, serialized: what the status route sends, from the cache when it is current. */
    getJson: (tenantId: string, id: string): Promise<string> => readVerificationJson(deps, tenantId, id),

    /** A reviewer's (or a provider callback's) decision. */
    decide: (id: string, decision: Decision, options: { reason: string; actor: string }) =>
      decideVerification(deps, id, decision, options),

    /** One worker pass over due provider steps; returns how many verifications it moved on. */
    runDueSteps: (limit = 20): Promise<number> => runDueSteps(deps, limit),

    /** Expires open verifications older than 7 days; returns how many. */
    expireOverdue: (limit = 100): Promise<number> => expireOverdue(deps, limit),
  };
}

export type VerificationService = ReturnType<typeof createVerificationService>;
