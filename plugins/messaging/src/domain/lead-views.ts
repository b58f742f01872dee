import { z } from 'zod';
import {
  COMPUTED_LEAD_STATUSES,
  type ComputedLeadStatus,
  LEAD_SOURCES,
  LEAD_STATUSES,
  type LeadSource,
  type LeadStatusName,
  LeadStatusSchema,
} from './lead-schemas.ts';

/**
 * What the leads routes answer (README, "Staff API", "Leads"): the records the store reads, the JSON views
 * made of them, and the zod schemas of those views for the OpenAPI document.
 */

/** A lead as the store reads it. */
export interface LeadRecord {
  id: string;
  conversationId: string | null;
  clusterId: string | null;
  source: LeadSource;
  name: string | null;
  email: string | null;
  phone: string | null;
  /** The effective status: the override while one is set, else the computed status. */
  status: LeadStatusName;
  /** What the fields give (`messaging_lead_status`), recomputed by every write of the fields. */
  computedStatus: ComputedLeadStatus;
  statusOverride: LeadStatusName | null;
  notes: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  capturedAt: Date | null;
}

/** The conversation a lead came from, as its detail shows it. */
export interface LeadConversationRecord {
  id: string;
  clusterId: string | null;
  contactName: string | null;
  contactPhone: string | null;
  contactUserId: string | null;
  status: string;
  assignedTo: string | null;
  unreadCount: number;
  lastMessageText: string | null;
  lastActivityAt: Date;
  createdAt: Date;
}

/** One change of a lead's effective status. */
export interface LeadHistoryRecord {
  status: LeadStatusName;
  computedStatus: ComputedLeadStatus;
  statusOverride: LeadStatusName | null;
  changedBy: string | null;
  changedAt: Date;
}

const instant = z.iso.datetime();
const ComputedStatusSchema = z.enum(COMPUTED_LEAD_STATUSES);
const EXAMPLE_LEAD_ID = '6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c';
const EXAMPLE_CONVERSATION_ID = '0b5f9a4e-7c1d-4a43-9a51-1f2c6e0d9b77';
const EXAMPLE_CLUSTER_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

export const LeadSchema = z
  .object({
    id: z.uuid(),
    conversationId: z.uuid().nullable().meta({ description: 'Null for a lead staff created by hand.' }),
    clusterId: z
      .uuid()
      .nullable()
      .meta({ description: 'The cluster whose staff see the lead (null: admins only).' }),
    source: z.enum(LEAD_SOURCES),
    name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable().meta({ description: '`62…` form.' }),
    status: LeadStatusSchema.meta({
      description: 'The effective status: `statusOverride` if set, else `computedStatus`.',
    }),
    computedStatus: ComputedStatusSchema.meta({
      description: 'What the fields give; every write of the fields recomputes it.',
    }),
    statusOverride: LeadStatusSchema.nullable(),
    notes: z.string().nullable(),
    version: z.int().meta({ description: 'Bumped by every change; the ETag is made of the id and this.' }),
    createdAt: instant,
    updatedAt: instant,
    capturedAt: instant.nullable().meta({ description: 'When the lead first had a name and an email.' }),
  })
  .meta({
    id: 'Lead',
    example: {
      id: EXAMPLE_LEAD_ID,
      conversationId: EXAMPLE_CONVERSATION_ID,
      clusterId: EXAMPLE_CLUSTER_ID,
      source: 'whatsapp',
      name: 'Budi Santoso',
      email: 'budi@example.com',
      phone: '6281234567890',
      status: 'contacted',
      computedStatus: 'qualified',
      statusOverride: 'contacted',
      notes: 'Called on Monday.',
      version: 4,
      createdAt: '2026-11-20T08:00:00.000Z',
      updatedAt: '2026-11-23T09:30:00.000Z',
      capturedAt: '2026-11-20T08:02:11.000Z',
    },
  });
export type LeadView = z.output<typeof LeadSchema>;

export const LeadPageSchema = z
  .object({
    items: z.array(LeadSchema),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null on the last.' }),
  })
  .meta({ id: 'LeadPage' });

const LeadConversationSchema = z
  .object({
    id: z.uuid(),
    clusterId: z.uuid().nullable(),
    contactName: z.string().nullable(),
    contactPhone: z.string().nullable(),
    contactUserId: z.string().nullable(),
    status: z.string().meta({ description: 'The inbox status: `open`, `pending` or `resolved`.' }),
    assignedTo: z.string().nullable(),
    unreadCount: z.int(),
    lastMessageText: z.string().nullable(),
    lastActivityAt: instant,
    createdAt: instant,
  })
  .meta({ id: 'LeadConversation' });

const LeadHistoryEntrySchema = z
  .object({
    status: LeadStatusSchema,
    computedStatus: ComputedStatusSchema,
    statusOverride: LeadStatusSchema.nullable(),
    changedBy: z.string().nullable().meta({ description: 'The staff member (`sub`); null: lead capture.' }),
    changedAt: instant,
  })
  .meta({ id: 'LeadStatusChange' });

export const LeadDetailSchema = z
  .object({
    lead: LeadSchema,
    conversation: LeadConversationSchema.nullable().meta({ description: 'Null for a lead created by hand.' }),
    history: z
      .array(LeadHistoryEntrySchema)
      .meta({ description: 'Changes of the effective status, oldest first (the latest 100).' }),
  })
  .meta({ id: 'LeadDetail' });
export type LeadDetailView = z.output<typeof LeadDetailSchema>;

const countsByStatus = z.object(Object.fromEntries(LEAD_STATUSES.map((status) => [status, z.int()])));

export const LeadSummarySchema = z
  .object({
    from: instant,
    to: instant,
    tz: z.string(),
    total: z.int(),
    byStatus: countsByStatus.meta({
      description: 'Leads by effective status (every status, zeros included).',
    }),
    byCluster: z
      .array(z.object({ clusterId: z.uuid().nullable(), count: z.int() }))
      .meta({ description: 'Leads by cluster, most first; `clusterId` null: no cluster (admins only).' }),
    byDay: z
      .array(z.object({ date: z.iso.date(), count: z.int() }))
      .meta({ description: 'Leads by calendar day in `tz`, every day of the range, zeros included.' }),
  })
  .meta({ id: 'LeadSummary' });
export type LeadSummaryView = z.output<typeof LeadSummarySchema>;

export const LegacyLeadSchema = z
  .object({
    id: z.uuid(),
    conversationId: z.uuid().nullable(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    status: LeadStatusSchema,
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'LegacyLead' });
export type LegacyLeadView = z.output<typeof LegacyLeadSchema>;

export const LegacyLeadListSchema = z
  .object({ items: z.array(LegacyLeadSchema) })
  .meta({ id: 'LegacyLeadList' });

const iso = (at: Date | null) => (at === null ? null : at.toISOString());

/** The JSON of a lead. */
export function leadView(lead: LeadRecord): LeadView {
  return {
    id: lead.id,
    conversationId: lead.conversationId,
    clusterId: lead.clusterId,
    source: lead.source,
    name: lead.name,
    email: lead.email,
    phone: lead.phone,
    status: lead.status,
    computedStatus: lead.computedStatus,
    statusOverride: lead.statusOverride,
    notes: lead.notes,
    version: lead.version,
    createdAt: lead.createdAt.toISOString(),
    updatedAt: lead.updatedAt.toISOString(),
    capturedAt: iso(lead.capturedAt),
  };
}

/** The JSON of a lead in the legacy API: its first fields, unchanged since that API was published. */
export function legacyLeadView(lead: LeadRecord): LegacyLeadView {
  return {
    id: lead.id,
    conversationId: lead.conversationId,
    name: lead.name,
    email: lead.email,
    phone: lead.phone,
    status: lead.status,
    createdAt: lead.createdAt.toISOString(),
    updatedAt: lead.updatedAt.toISOString(),
  };
}

/** The JSON of a lead's detail. */
export function leadDetailView(
  lead: LeadRecord,
  conversation: LeadConversationRecord | null,
  history: readonly LeadHistoryRecord[],
): LeadDetailView {
  return {
    lead: leadView(lead),
    conversation:
      conversation === null
        ? null
        : {
            ...conversation,
            lastActivityAt: conversation.lastActivityAt.toISOString(),
            createdAt: conversation.createdAt.toISOString(),
          },
    history: history.map((entry) => ({ ...entry, changedAt: entry.changedAt.toISOString() })),
  };
}
