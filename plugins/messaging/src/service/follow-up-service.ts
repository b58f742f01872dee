import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import type {
  FollowUpStatus,
  FollowUpView,
  RuleInput,
  RuleView,
  TriggerInput,
} from '../domain/follow-up-schemas.ts';
import { clusterLimit, type StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { followUpRuleStore, type RuleRow } from '../store/follow-up-rule-store.ts';
import { type FollowUpRow, followUpStore } from '../store/follow-up-store.ts';
import { inboxStore } from '../store/inbox-store.ts';

export interface FollowUpServiceDeps {
  db: Database;
  clock: Clock;
  /** Runs the follow-up pass now (a manual trigger is due at once). */
  kick(): void;
}

const template = (name: string | null, languageCode: string | null, parameters: string[]) =>
  name === null || languageCode === null ? null : { name, languageCode, parameters };

export function ruleView(row: RuleRow): RuleView {
  return {
    id: row.id,
    kind: row.kind,
    delayHours: row.delayHours,
    text: row.text,
    template: template(row.templateName, row.templateLanguage, row.templateParameters),
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function followUpView(row: FollowUpRow): FollowUpView {
  return {
    id: row.id,
    conversationId: row.conversationId,
    ruleId: row.ruleId,
    manual: row.manual,
    dueAt: row.dueAt.toISOString(),
    status: row.status,
    text: row.text,
    template: template(row.templateName, row.templateLanguage, row.templateParameters),
    attempts: row.attempts,
    lastError: row.lastError,
    messageId: row.messageId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Admin routes (rules): anyone else is refused. */
export function requireAdmin(scope: StaffScope): void {
  if (!scope.admin) throw messagingErrors.create('messaging.staff.admin_required');
}

/**
 * Follow-ups through the staff API (README, "Follow-ups"): rules (admins), the queue in the caller's scope,
 * cancelling one and triggering one by hand.
 */
export function createFollowUpService(deps: FollowUpServiceDeps) {
  const { db, clock } = deps;
  const notFound = () => messagingErrors.create('messaging.follow_up_rule.not_found');
  return {
    async listRules(): Promise<RuleView[]> {
      return (await followUpRuleStore.list(db)).map(ruleView);
    },
    async getRule(id: string): Promise<RuleView> {
      const row = await followUpRuleStore.get(db, id);
      if (row === null) throw notFound();
      return ruleView(row);
    },
    async createRule(input: RuleInput): Promise<RuleView> {
      return ruleView(await followUpRuleStore.insert(db, input, clock.now()));
    },
    /** Replaces a rule; its pending follow-ups follow it, or are cancelled when it is disabled or changes kind. */
    async replaceRule(id: string, input: RuleInput): Promise<RuleView> {
      return db.transaction(async (tx) => {
        const before = await followUpRuleStore.get(tx, id, true);
        if (before === null) throw notFound();
        const now = clock.now();
        const row = await followUpRuleStore.replace(tx, id, input, now);
        const reason = !input.enabled
          ? 'the rule was disabled'
          : before.kind !== input.kind
            ? 'the rule changed kind'
            : null;
        await followUpStore.ruleChanged(tx, { id, ...input }, reason, now);
        return ruleView(row);
      });
    },
    /** Deletes a rule; its pending follow-ups are cancelled, the others stay in the queue without it. */
    async deleteRule(id: string): Promise<void> {
      await db.transaction(async (tx) => {
        const rule = await followUpRuleStore.get(tx, id, true);
        if (rule === null) throw notFound();
        await followUpStore.ruleChanged(
          tx,
          { id, delayHours: rule.delayHours, text: null, template: null },
          'the rule was deleted',
          clock.now(),
        );
        await followUpRuleStore.delete(tx, id);
      });
    },
    async queue(
      scope: StaffScope,
      filter: { status?: FollowUpStatus; conversationId?: string; limit: number },
    ): Promise<FollowUpView[]> {
      const rows = await followUpStore.list(db, clusterLimit(scope), filter, filter.limit);
      return rows.map(followUpView);
    },
    async cancel(scope: StaffScope, id: string): Promise<FollowUpView> {
      const row = await followUpStore.cancel(db, id, clusterLimit(scope), clock.now());
      if (row !== null) return followUpView(row);
      if ((await followUpStore.get(db, id, clusterLimit(scope))) === null)
        throw messagingErrors.create('messaging.follow_up.not_found');
      throw messagingErrors.create('messaging.follow_up.not_pending');
    },
    /** A follow-up due now on a conversation in the caller's scope; the pass decides and sends it. */
    async trigger(scope: StaffScope, input: TriggerInput): Promise<FollowUpView> {
      const row = await db.transaction(async (tx) => {
        const conversation = await inboxStore.lock(tx, input.conversationId, clusterLimit(scope));
        if (conversation === null) throw messagingErrors.create('messaging.conversation.not_found');
        const inserted = await followUpStore.insertManual(tx, {
          conversationId: input.conversationId,
          userId: scope.userId,
          text: input.text,
          template: input.template,
          at: clock.now(),
        });
        if (inserted === null) throw messagingErrors.create('messaging.follow_up.already_pending');
        return inserted;
      });
      deps.kick();
      return followUpView(row);
    },
  };
}

export type FollowUpService = ReturnType<typeof createFollowUpService>;
