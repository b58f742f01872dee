import { HISTORY_LIMIT } from '../rollout/history.ts';
import type { JsonSchema } from './json-schema.ts';
import { apiAuthModeSchema } from './spec-schema.ts';

/**
 * The AuthConfig's `status`, written only by the operator through the status subresource. The rollout part
 * has the shape of `RolloutState` (operator/src/rollout/types.ts), checked by a type test, so the rollout
 * engine's state is stored as it is.
 */

const timestamp = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });
const count = (description: string): JsonSchema => ({
  type: 'integer',
  format: 'int64',
  minimum: 0,
  description,
});

export const CONDITION_TYPES = ['Ready', 'Progressing', 'Degraded', 'Promotable', 'Phase3Ready'] as const;

/** metav1.Condition, with the condition types this resource uses. */
export const conditionSchema: JsonSchema = {
  type: 'object',
  description: 'One aspect of the current state (Kubernetes API conventions, "Typical status properties").',
  required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
  properties: {
    type: { type: 'string', enum: [...CONDITION_TYPES], description: 'Which aspect.' },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'], description: 'Whether it holds.' },
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      description: 'Why, in CamelCase, e.g. InvalidSpec or InsufficientSamples.',
    },
    message: { type: 'string', maxLength: 32768, description: 'Why, for humans.' },
    observedGeneration: count('The metadata.generation this condition was computed from.'),
    lastTransitionTime: timestamp('When status last changed.'),
  },
};

export const rolloutFiguresSchema: JsonSchema = {
  type: 'object',
  description: 'The analysis figures a decision saw.',
  properties: {
    gatedRequests: count('Gated requests in the analysis window.'),
    failureRatio: {
      type: 'number',
      minimum: 0,
      description: 'warn: would_deny / gated requests; enforce: fail / gated requests.',
    },
    consecutiveBadChecks: count('Bad checks in a row at the time.'),
    error: { type: 'string', maxLength: 1024, description: 'Why the metrics could not be read.' },
  },
};

export const rolloutHistoryEntrySchema: JsonSchema = {
  type: 'object',
  description: 'One change of the effective API_AUTH_MODE.',
  required: ['at', 'from', 'to', 'reason', 'figures'],
  properties: {
    at: timestamp('When.'),
    from: apiAuthModeSchema,
    to: apiAuthModeSchema,
    reason: {
      type: 'string',
      maxLength: 1024,
      description: 'Why, e.g. Promoted, Fallback or RollbackRequested.',
    },
    figures: rolloutFiguresSchema,
  },
};

/** `AnalysisRecord` of the rollout engine: `ok` says which of the figures or the error is there. */
export const analysisRecordSchema: JsonSchema = {
  type: 'object',
  description: 'The latest analysis, whatever it concluded.',
  required: ['ok', 'at', 'mode'],
  properties: {
    ok: {
      type: 'boolean',
      description: 'Whether the queries answered (then the figures are set, else error).',
    },
    at: timestamp('When it ran.'),
    mode: { ...apiAuthModeSchema, description: 'The effective mode it measured.' },
    gatedRequests: count('Gated requests in the window.'),
    failureRatio: { type: 'number', minimum: 0, description: 'The ratio compared with maxWouldDenyRatio.' },
    error: { type: 'string', maxLength: 1024, description: 'Why the metrics could not be read.' },
  },
};

export const rolloutStatusSchema: JsonSchema = {
  type: 'object',
  description: 'Where the API_AUTH_MODE rollout stands.',
  required: ['effectiveMode', 'since', 'consecutiveBadChecks', 'consecutiveQueryErrors', 'history'],
  properties: {
    effectiveMode: { ...apiAuthModeSchema, description: 'The API_AUTH_MODE the gateway was given.' },
    since: timestamp('When the effective mode was entered.'),
    phase: {
      type: 'integer',
      minimum: 0,
      maximum: 3,
      description: 'The rollout phase: 0 disabled, 1 warn, 2 enforce, 3 enforce soaked for minEnforceSoak.',
    },
    consecutiveBadChecks: count('Analyses in a row over the threshold (in enforce: towards a fallback).'),
    consecutiveQueryErrors: count('Analyses in a row whose queries failed (never a pass).'),
    lastAnalysis: analysisRecordSchema,
    history: {
      type: 'array',
      description: `Transitions, oldest first; the last ${HISTORY_LIMIT} are kept.`,
      maxItems: HISTORY_LIMIT,
      'x-kubernetes-list-type': 'atomic',
      items: rolloutHistoryEntrySchema,
    },
  },
};

export const statusSchema: JsonSchema = {
  type: 'object',
  description: 'What the operator observed and did.',
  properties: {
    observedGeneration: count('The metadata.generation the operator last acted on.'),
    conditions: {
      type: 'array',
      description: 'Ready, Progressing, Degraded, Promotable and Phase3Ready.',
      maxItems: 8,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      items: conditionSchema,
    },
    appliedHash: {
      type: 'string',
      pattern: '^[0-9a-f]{10}$',
      description: 'Content hash of the env ConfigMap the target runs with (<name>-env-<hash>).',
    },
    previousHash: {
      type: 'string',
      pattern: '^[0-9a-f]{10}$',
      description: 'The hash applied before it, for rollback.',
    },
    rollout: rolloutStatusSchema,
  },
};
