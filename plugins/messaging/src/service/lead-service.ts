import { type Clock, coreErrors, type Database } from '../../../../gateway/src/plugin-api.ts';
import { leadCursor, leadCursorPosition, leadOrder } from '../domain/lead-cursor.ts';
import { leadEtag, type LeadPrecondition } from '../domain/lead-etag.ts';
import type {
  LeadChanges,
  LeadFilterQuery,
  LeadListQuery,
  LeadSummaryQuery,
  LegacyLeadCreate,
} from '../domain/lead-schemas.ts';
import { leadSummaryView } from '../domain/lead-summary.ts';
import {
  leadDetailView,
  type LeadDetailView,
  type LeadRecord,
  type LeadSummaryView,
  leadView,
  type LeadView,
} from '../domain/lead-views.ts';
import { clusterLimit, inScope, type StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { leadQueryStore } from '../store/lead-query-store.ts';
import { leadSummaryStore } from '../store/lead-summary-store.ts';
import { leadWriteStore } from '../store/lead-write-store.ts';
import { routingStore } from '../store/routing-store.ts';
import { type CsvSink, exportLeads } from './lead-export.ts';

/** How many status changes a lead's detail shows (the latest). */
const HISTORY_SHOWN = 100;

export interface LeadServiceDeps {
  db: Database;
  clock: Clock;
  /** MESSAGING_EXPORT_MAX_ROWS. */
  exportMaxRows: number;
  /** MESSAGING_SUMMARY_TIME_ZONE: summaries in this zone are summed from the counts. */
  summaryZone: string;
}

/** A lead with the ETag of the version shown. */
export interface Tagged<T> {
  view: T;
  etag: string;
}

/**
 * The staff API's leads (README, "Staff API", "Leads"): the v2 list, summary, detail and patch, and the
 * legacy list and create. Every read and write is limited to the caller's scope (domain/staff-scope.ts);
 * a lead outside it is answered as one that does not exist.
 */
export function createLeadService(deps: LeadServiceDeps) {
  const { db, clock } = deps;
  let timeZones: Promise<Set<string>> | undefined;

  /** A cluster a filter names must be one the caller sees, as in the inbox: else 404, like a record. */
  async function assertClusterVisible(scope: StaffScope, clusterId: string | undefined): Promise<void> {
    if (clusterId === undefined) return;
    const visible = scope.admin ? await routingStore.clusterExists(db, clusterId) : inScope(scope, clusterId);
    if (!visible) throw messagingErrors.create('messaging.cluster.not_found');
  }

  return {
    /** One page of the v2 list. */
    async list(
      scope: StaffScope,
      query: LeadListQuery,
    ): Promise<{ items: LeadView[]; nextCursor: string | null }> {
      const { sort, limit, cursor, ...filter } = query;
      await assertClusterVisible(scope, filter.cluster);
      const after = cursor === undefined ? null : leadCursorPosition(sort, cursor);
      if (cursor !== undefined && after === null) throw messagingErrors.create('messaging.cursor.invalid');
      const rows = await leadQueryStore.page(db, {
        filter,
        order: leadOrder(sort),
        after,
        limit: limit + 1,
        clusters: clusterLimit(scope),
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: page.map((row) => leadView(row.lead)),
        nextCursor: rows.length > limit && last ? leadCursor(sort, last.position) : null,
      };
    },

    /** The newest leads in the scope (the legacy list). */
    async newest(scope: StaffScope, limit: number): Promise<LeadRecord[]> {
      const rows = await leadQueryStore.page(db, {
        filter: {},
        order: leadOrder('-createdAt'),
        after: null,
        limit,
        clusters: clusterLimit(scope),
      });
      return rows.map((row) => row.lead);
    },

    /** Counts of the leads created in a range, by status, cluster and calendar day in `tz`. */
    async summary(scope: StaffScope, query: LeadSummaryQuery): Promise<LeadSummaryView> {
      timeZones ??= leadSummaryStore.timeZones(db).then((names) => new Set(names));
      // The cached promise is dropped when it failed, so a database hiccup is not remembered.
      const known = await timeZones.catch((err: unknown) => {
        timeZones = undefined;
        throw err;
      });
      if (!known.has(query.tz)) {
        throw coreErrors.create('validation.failed', {
          detail: '1 problem with the request',
          extensions: { errors: [{ path: 'query.tz', message: 'is not a time zone the database knows' }] },
        });
      }
      const request = { ...query, clusters: clusterLimit(scope) };
      // The counts answer only in their own zone; other zones, and the rare range they cannot answer
      // exactly, scan the leads (README, "Leads").
      const rolledUp = query.tz === deps.summaryZone ? await leadSummaryStore.rolledUp(db, request) : null;
      return leadSummaryView(query, rolledUp ?? (await leadSummaryStore.counts(db, request)));
    },

    /** The CSV export of a v2 filter (service/lead-export.ts). */
    async export(scope: StaffScope, query: LeadFilterQuery, open: () => CsvSink): Promise<void> {
      await assertClusterVisible(scope, query.cluster);
      await exportLeads({ db, maxRows: deps.exportMaxRows }, scope, query, open);
    },

    /** A lead with its conversation and status history. */
    async detail(scope: StaffScope, id: string): Promise<Tagged<LeadDetailView>> {
      const found = await leadQueryStore.findWithConversation(db, id, clusterLimit(scope));
      if (!found) throw messagingErrors.create('messaging.lead.not_found');
      const history = await leadQueryStore.history(db, id, HISTORY_SHOWN);
      return {
        view: leadDetailView(found.lead, found.conversation, history),
        etag: leadEtag(found.lead.id, found.lead.version),
      };
    },

    /**
     * Staff changes to a lead, applied only to the version `If-Match` names: one conditional UPDATE, so of
     * two writers holding the same ETag exactly one succeeds, and the other learns that it is stale.
     */
    async patch(
      scope: StaffScope,
      id: string,
      changes: LeadChanges,
      precondition: LeadPrecondition,
    ): Promise<Tagged<LeadView>> {
      if (precondition.kind === 'missing')
        throw messagingErrors.create('messaging.lead.precondition_required');
      const clusters = clusterLimit(scope);
      const lead = await db.transaction(async (client) => {
        await leadWriteStore.actAs(client, scope.userId);
        const updated = await leadWriteStore.update(client, {
          id,
          changes,
          versions: precondition.kind === 'any' ? null : precondition.versions,
          clusters,
          now: clock.now(),
        });
        if (updated) return updated;
        const exists = await leadQueryStore.exists(client, id, clusters);
        throw messagingErrors.create(
          exists ? 'messaging.lead.precondition_failed' : 'messaging.lead.not_found',
        );
      });
      return { view: leadView(lead), etag: leadEtag(lead.id, lead.version) };
    },

    /** A lead staff typed in (the legacy create), in a cluster of theirs. */
    async create(scope: StaffScope, input: LegacyLeadCreate): Promise<LeadRecord> {
      const clusterId = clusterForNewLead(scope, input.clusterId);
      const lead = await db.transaction(async (client) => {
        await leadWriteStore.actAs(client, scope.userId);
        return leadWriteStore.createManual(
          client,
          {
            name: input.name,
            email: input.email ?? null,
            phone: input.phone ?? null,
            notes: input.notes ?? null,
            clusterId,
          },
          clock.now(),
        );
      });
      if (!lead) throw messagingErrors.create('messaging.cluster.not_found');
      return lead;
    },
  };
}

export type LeadService = ReturnType<typeof createLeadService>;

/**
 * The cluster a new lead goes to. A named cluster must be in the caller's scope. Without one, an agent's
 * only cluster is taken (with several or none, they must name it), and an admin's lead goes to no cluster
 * (then only admins see it).
 */
function clusterForNewLead(scope: StaffScope, requested: string | undefined): string | null {
  if (requested !== undefined) {
    if (!inScope(scope, requested)) throw messagingErrors.create('messaging.cluster.not_found');
    return requested;
  }
  if (scope.admin) return null;
  const [only, ...others] = scope.clusters;
  if (only !== undefined && others.length === 0) return only;
  throw coreErrors.create('validation.failed', {
    detail: '1 problem with the request',
    extensions: {
      errors: [
        {
          path: 'body.clusterId',
          message:
            only === undefined
              ? 'you are a member of no cluster'
              : 'required: you are a member of several clusters',
        },
      ],
    },
  });
}
