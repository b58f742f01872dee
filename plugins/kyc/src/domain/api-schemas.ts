import { z } from 'zod';
import { QUOTA_PERIODS } from './quota-period.ts';
import { VERIFICATION_STATUSES } from './state-machine.ts';
import { VERIFICATION_TYPE_NAMES, VERIFICATION_TYPES } from './verification-types.ts';

/**
 * The public KYC API's shapes. The same schemas validate requests (the route table parses with them)
 * and describe the API in the OpenAPI document at GET /docs-json, so the document cannot disagree with
 * what the API accepts (README, "API document and explorer"). `.meta({ id })` names a component of the
 * document.
 */

export const VerificationTypeSchema = z.enum(VERIFICATION_TYPE_NAMES).meta({
  id: 'VerificationType',
  description: Object.entries(VERIFICATION_TYPES)
    .map(([name, description]) => `\`${name}\`: ${description}`)
    .join('\n'),
});

export const VerificationStatusSchema = z.enum(VERIFICATION_STATUSES).meta({
  id: 'VerificationStatus',
  description:
    '`pending` → `processing` → `approved` | `rejected` | `needs_review`; `needs_review` → `approved` | ' +
    '`rejected`; `pending` and `processing` become `expired` 7 days after initiation. Terminal: ' +
    '`approved`, `rejected`, `expired`.',
});

export const InitiateRequestSchema = z
  .strictObject({
    type: VerificationTypeSchema,
    subjectExternalRef: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII without spaces' })
      .meta({
        description:
          'Your own reference for the subject. Sandbox tenants: a reference ending in `-approve`, ' +
          '`-reject` or `-review` drives the verification to `approved`, `rejected` or `needs_review`; ' +
          'any other reference stays `processing` until a reviewer decides.',
        example: 'customer-1842-approve',
      }),
  })
  .meta({
    id: 'InitiateVerificationRequest',
    example: { type: 'INDIVIDUAL_KTP', subjectExternalRef: 'customer-1842-approve' },
  });
export type InitiateRequest = z.output<typeof InitiateRequestSchema>;

export const TransitionSchema = z
  .object({
    from: VerificationStatusSchema.nullable(),
    to: VerificationStatusSchema,
    reason: z.string().nullable(),
    at: z.iso.datetime(),
  })
  .meta({ id: 'VerificationTransition' });

export const VerificationSchema = z
  .object({
    id: z.uuid(),
    type: VerificationTypeSchema,
    subjectExternalRef: z.string(),
    status: VerificationStatusSchema,
    sandbox: z.boolean().meta({ description: 'True when started with a sandbox key (no quota used).' }),
    decisionReason: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    decidedAt: z.iso.datetime().nullable(),
    expiresAt: z.iso.datetime().meta({ description: 'When a still-open verification expires.' }),
    history: z.array(TransitionSchema).meta({ description: 'Every status change, oldest first.' }),
  })
  .meta({
    id: 'Verification',
    example: {
      id: '0b5f9a4e-7c1d-4a43-9a51-1f2c6e0d9b77',
      type: 'INDIVIDUAL_KTP',
      subjectExternalRef: 'customer-1842-approve',
      status: 'pending',
      sandbox: true,
      decisionReason: null,
      createdAt: '2026-11-21T08:00:00.000Z',
      updatedAt: '2026-11-21T08:00:00.000Z',
      decidedAt: null,
      expiresAt: '2026-11-28T08:00:00.000Z',
      history: [{ from: null, to: 'pending', reason: 'initiated', at: '2026-11-21T08:00:00.000Z' }],
    },
  });
export type VerificationView = z.output<typeof VerificationSchema>;

export const VerificationIdParamsSchema = z.object({
  id: z.uuid({ error: 'must be a verification id' }).meta({ description: 'The verification id.' }),
});

export const UsageSchema = z
  .object({
    tenantId: z.uuid(),
    sandbox: z.boolean(),
    period: z.object({
      kind: z.enum(QUOTA_PERIODS),
      start: z.iso.datetime(),
      end: z.iso.datetime().nullable(),
    }),
    quota: z.object({
      limit: z.int().meta({ description: 'Billable initiations allowed in the period.' }),
      used: z.int(),
      remaining: z.int(),
    }),
    initiations: z.object({
      total: z.int().meta({ description: 'Verifications started in the period.' }),
      billable: z.int().meta({ description: 'Of which consumed quota (always 0 for sandbox).' }),
    }),
  })
  .meta({ id: 'Usage' });

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
