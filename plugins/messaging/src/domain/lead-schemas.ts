import { z } from 'zod';
import { pageLimit } from './page-limit.ts';
import { normaliseEmail } from '../conversation/extract/email.ts';
import { asName } from '../conversation/extract/name.ts';
import { normalisePhone } from '../conversation/extract/phone.ts';

/**
 * The leads routes' request shapes (README, "Staff API", "Leads"). The route table validates params, query
 * and body with them before a handler runs, and the OpenAPI document is generated from them, so the two
 * cannot disagree. Query values arrive as strings and are converted here.
 */

/** Every status a lead can show: the three the fields give, and the three only staff set. */
export const LEAD_STATUSES = [
  'incomplete',
  'captured',
  'qualified',
  'contacted',
  'converted',
  'disqualified',
] as const;
export type LeadStatusName = (typeof LEAD_STATUSES)[number];

/** The statuses a lead's fields give (`messaging_lead_status`, and `leadStatus` in lead.ts). */
export const COMPUTED_LEAD_STATUSES = ['incomplete', 'captured', 'qualified'] as const;
export type ComputedLeadStatus = (typeof COMPUTED_LEAD_STATUSES)[number];

export const LEAD_SOURCES = ['whatsapp', 'manual'] as const;
export type LeadSource = (typeof LEAD_SOURCES)[number];

/** The orders of the v2 list and export; `-` is newest first. */
export const LEAD_SORTS = ['-createdAt', 'createdAt', '-updatedAt', 'updatedAt'] as const;
export type LeadSort = (typeof LEAD_SORTS)[number];

/** The longest range one summary covers. */
export const SUMMARY_MAX_DAYS = 366;

export const LeadStatusSchema = z.enum(LEAD_STATUSES).meta({
  id: 'LeadStatus',
  description:
    '`incomplete` (name or email missing), `captured` (name and email), `qualified` (and a phone): what ' +
    'the fields give. `contacted`, `converted`, `disqualified`: set only by staff, as an override.',
});

// The contact fields are checked by the very functions lead capture checks what it reads in a message
// with, so staff can store nothing the capture flow would refuse, and store it in the same normal form.

/** A person's name as capture accepts one: 1 to 5 words of letters, title-cased. */
export const leadNameField = z
  .string()
  .max(200)
  .transform((value, ctx) => {
    const name = asName(value);
    if (name === null) ctx.addIssue({ code: 'custom', message: 'must be a name: 1 to 5 words of letters' });
    return name ?? z.NEVER;
  })
  .meta({ description: 'A name as lead capture reads one: 1 to 5 words of letters; stored title-cased.' });

/** An email address as capture accepts one; the domain is lower-cased. */
export const leadEmailField = z
  .string()
  .max(320)
  .transform((value, ctx) => {
    const email = normaliseEmail(value);
    if (email === null) ctx.addIssue({ code: 'custom', message: 'must be a valid email address' });
    return email ?? z.NEVER;
  })
  .meta({ description: 'An email address; the domain is stored lower-cased.', example: 'budi@example.com' });

/** An Indonesian mobile number in any common writing, stored as `62…`. */
export const leadPhoneField = z
  .string()
  .max(40)
  .transform((value, ctx) => {
    const phone = normalisePhone(value);
    if (phone === null) {
      ctx.addIssue({ code: 'custom', message: 'must be an Indonesian mobile number, e.g. 0812 3456 7890' });
    }
    return phone ?? z.NEVER;
  })
  .meta({
    description: 'An Indonesian mobile number (`0812…`, `+62 812…`, `62812…`); stored as `62812…`.',
    example: '0812 3456 7890',
  });

export const leadNotesField = z
  .string()
  .max(10_000)
  .meta({ description: "Staff's notes, up to 10,000 characters." });

/** The `:id` of a lead path. */
export const LeadIdParamsSchema = z.object({ id: z.uuid({ error: 'must be a lead id' }) });

/** Query strings hold text: a flag and a timestamp are read from it here (a page size: page-limit.ts). */
const flagField = z.enum(['true', 'false']).transform((value) => value === 'true');

const instantField = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone offset' })
  .transform((value) => new Date(value));

/**
 * `status=captured,qualified` or `status=captured&status=qualified`: either spelling, any mix; a lead
 * matches when its effective status is one of them.
 */
const statusListField = z
  .union([z.string().max(200), z.array(z.string().max(200)).max(6)])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((part) => part.split(',')))
  .pipe(z.array(z.enum(LEAD_STATUSES)).min(1).max(6))
  .transform((statuses) => [...new Set(statuses)])
  .meta({
    description:
      'Effective statuses to keep: a comma-separated list (`captured,qualified`), or the parameter repeated.',
    example: 'captured,qualified',
  });

/** The filters the v2 list and the CSV export share. */
const filterShape = {
  status: statusListField.optional(),
  cluster: z
    .uuid({ error: 'must be a cluster id' })
    .optional()
    .meta({ description: 'One cluster. A cluster that does not exist or is outside your scope is a 404.' }),
  createdFrom: instantField.optional().meta({ description: 'Created at or after (inclusive).' }),
  createdTo: instantField.optional().meta({ description: 'Created before (exclusive).' }),
  updatedFrom: instantField.optional().meta({ description: 'Last changed at or after (inclusive).' }),
  updatedTo: instantField.optional().meta({ description: 'Last changed before (exclusive).' }),
  hasPhone: flagField.optional().meta({ description: 'Only leads with (`true`) or without a phone.' }),
  hasEmail: flagField.optional().meta({ description: 'Only leads with (`true`) or without an email.' }),
  source: z
    .enum(LEAD_SOURCES)
    .optional()
    .meta({ description: 'How the lead came: a conversation or staff.' }),
  q: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Text the name, email or phone contains (case-insensitive).', example: 'budi' }),
  sort: z
    .enum(LEAD_SORTS)
    .default('-createdAt')
    .meta({ description: 'The order; `-` is newest first. Ties are broken by id.' }),
};

/**
 * A range ends after it starts. Object refinements run even when a field failed its own check, and then see
 * that field as it was sent: only two parsed dates are compared.
 */
function rangesInOrder(
  query: { createdFrom?: Date; createdTo?: Date; updatedFrom?: Date; updatedTo?: Date },
  ctx: z.RefinementCtx,
): void {
  for (const [from, to] of [
    ['createdFrom', 'createdTo'],
    ['updatedFrom', 'updatedTo'],
  ] as const) {
    const start = query[from];
    const end = query[to];
    if (start instanceof Date && end instanceof Date && end.getTime() <= start.getTime()) {
      ctx.addIssue({ code: 'custom', path: [to], message: `must be after ${from}` });
    }
  }
}

export const LeadListQuerySchema = z
  .strictObject({
    ...filterShape,
    limit: pageLimit,
    cursor: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .meta({ description: "The previous page's `nextCursor`, for the same `sort`." }),
  })
  .superRefine(rangesInOrder);
export type LeadListQuery = z.output<typeof LeadListQuerySchema>;

export const LeadExportQuerySchema = z.strictObject(filterShape).superRefine(rangesInOrder);
export type LeadFilterQuery = z.output<typeof LeadExportQuerySchema>;

/** An IANA time zone name's shape; whether the zone exists is checked against PostgreSQL's list. */
const timeZoneField = z
  .string()
  .max(64)
  .regex(/^[A-Za-z][\w+-]*(?:\/[\w+-]+)*$/, { error: 'must be an IANA time zone name' })
  .default('UTC')
  .meta({
    description: 'The IANA time zone whose calendar days `byDay` counts in.',
    example: 'Asia/Jakarta',
  });

export const LeadSummaryQuerySchema = z
  .strictObject({
    from: instantField.meta({ description: 'Leads created at or after (inclusive).' }),
    to: instantField.meta({ description: 'Leads created before (exclusive).' }),
    tz: timeZoneField,
  })
  .superRefine((query, ctx) => {
    if (!(query.from instanceof Date && query.to instanceof Date)) return;
    const span = query.to.getTime() - query.from.getTime();
    if (span <= 0) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
    else if (span > SUMMARY_MAX_DAYS * 86_400_000) {
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `must be at most ${SUMMARY_MAX_DAYS} days after from`,
      });
    }
  });
export type LeadSummaryQuery = z.output<typeof LeadSummaryQuerySchema>;

export const LegacyLeadListQuerySchema = z.strictObject({ limit: pageLimit });

export const LegacyLeadCreateSchema = z
  .strictObject({
    name: leadNameField,
    email: leadEmailField.optional(),
    phone: leadPhoneField.optional(),
    notes: leadNotesField.optional(),
    clusterId: z
      .uuid({ error: 'must be a cluster id' })
      .optional()
      .meta({
        description:
          'The cluster whose staff see the lead. An agent names one of their clusters (or omits it when ' +
          'they belong to exactly one); an admin may omit it (then only admins see the lead).',
      }),
  })
  .meta({
    id: 'LegacyLeadCreate',
    example: { name: 'Budi Santoso', email: 'budi@example.com', phone: '0812 3456 7890' },
  });
export type LegacyLeadCreate = z.output<typeof LegacyLeadCreateSchema>;

export const LeadChangesSchema = z
  .strictObject({
    name: leadNameField.nullable().optional(),
    email: leadEmailField.nullable().optional(),
    phone: leadPhoneField.nullable().optional(),
    statusOverride: LeadStatusSchema.nullable()
      .optional()
      .meta({ description: 'Shown instead of the status the fields give, until set to null.' }),
    notes: leadNotesField.nullable().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { error: 'must change at least one field' })
  .meta({
    id: 'LeadChanges',
    description: 'The fields to change; a field left out keeps its value, null clears it.',
    example: { statusOverride: 'contacted', notes: 'Called on Monday; visiting on Friday.' },
  });
export type LeadChanges = z.output<typeof LeadChangesSchema>;
