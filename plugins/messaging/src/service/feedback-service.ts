import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import {
  type FeedbackInput,
  type FeedbackListItem,
  type FeedbackListQuery,
  FeedbackPositionSchema,
  type FeedbackView,
} from '../domain/feedback-schemas.ts';
import { clusterLimit, type StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { feedbackStore, type FeedbackListRow, type FeedbackRow } from '../store/feedback-store.ts';

/** Tags the feedback list's cursors: a cursor of another list does not decode here. */
const CURSOR_KIND = 'feedback';

/** What the feedback use cases need. */
export interface FeedbackDeps {
  db: Pick<Database, 'query'>;
  clock: Clock;
}

/**
 * Gives (or replaces) the caller's feedback on a bot reply they see (README, "Staff API", "Feedback").
 * `created` tells a first feedback from a replaced one.
 */
export async function putFeedback(
  deps: FeedbackDeps,
  scope: StaffScope,
  messageId: string,
  input: FeedbackInput,
): Promise<{ feedback: FeedbackView; created: boolean }> {
  const clusters = clusterLimit(scope);
  const written = await feedbackStore
    .upsert(deps.db, { messageId, userId: scope.userId, ...input }, clusters, deps.clock.now())
    .catch(messageGone);
  if (written) return { feedback: feedbackView(written.row), created: written.created };
  // Nothing written: say why, without telling an agent anything about a message outside their scope.
  const message = await feedbackStore.findMessage(deps.db, messageId, clusters);
  if (!message) throw messagingErrors.create('messaging.message.not_found');
  throw messagingErrors.create('messaging.feedback.not_bot_reply');
}

/** The caller's feedback and everyone's on a message they see. */
export async function readFeedback(
  deps: FeedbackDeps,
  scope: StaffScope,
  messageId: string,
): Promise<{ mine: FeedbackView | null; all: FeedbackView[] }> {
  await requireMessage(deps, scope, messageId);
  const all = (await feedbackStore.forMessage(deps.db, messageId)).map(feedbackView);
  return { mine: all.find((f) => f.userId === scope.userId) ?? null, all };
}

/** Withdraws the caller's feedback on a message they see; nothing to withdraw is not an error. */
export async function deleteFeedback(
  deps: FeedbackDeps,
  scope: StaffScope,
  messageId: string,
): Promise<void> {
  await requireMessage(deps, scope, messageId);
  await feedbackStore.remove(deps.db, messageId, scope.userId);
}

/** One page of the feedback the caller sees, newest first. */
export async function listFeedback(
  deps: FeedbackDeps,
  scope: StaffScope,
  query: FeedbackListQuery,
): Promise<{ items: FeedbackListItem[]; nextCursor: string | null }> {
  const after = query.cursor === undefined ? undefined : decodePosition(query.cursor);
  const limit = query.limit;
  // One row more than the page says whether there is a next page without a second query.
  const rows = await feedbackStore.page(
    deps.db,
    {
      limit: limit + 1,
      ...(query.rating === undefined ? {} : { rating: query.rating }),
      ...(query.hasCorrection === undefined ? {} : { hasCorrection: query.hasCorrection === 'true' }),
      ...(after === undefined ? {} : { after }),
    },
    clusterLimit(scope),
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? encodeCursor(CURSOR_KIND, [Number(last.position), last.message_id, last.user_id])
      : null;
  return { items: page.map(listItem), nextCursor };
}

function decodePosition(cursor: string): readonly [number, string, string] {
  const position = decodeCursor(CURSOR_KIND, cursor, FeedbackPositionSchema);
  if (!position) throw messagingErrors.create('messaging.cursor.invalid');
  return position;
}

async function requireMessage(deps: FeedbackDeps, scope: StaffScope, messageId: string): Promise<void> {
  const message = await feedbackStore.findMessage(deps.db, messageId, clusterLimit(scope));
  if (!message) throw messagingErrors.create('messaging.message.not_found');
}

/** A message erased between the scope check and the row's foreign key check is a message that is not there. */
function messageGone(err: unknown): never {
  if ((err as { code?: unknown }).code === '23503')
    throw messagingErrors.create('messaging.message.not_found');
  throw err;
}

function feedbackView(row: FeedbackRow): FeedbackView {
  return {
    messageId: row.message_id,
    userId: row.user_id,
    rating: row.rating,
    correctIntent: row.corrected_intent,
    correctAnswer: row.corrected_answer,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function listItem(row: FeedbackListRow): FeedbackListItem {
  return {
    ...feedbackView(row),
    conversationId: row.conversation_id,
    clusterId: row.cluster_id,
    language: row.language,
    reply: { text: row.reply_text, template: row.template, createdAt: row.reply_at.toISOString() },
    inbound:
      row.inbound_id === null
        ? null
        : {
            id: row.inbound_id,
            text: row.inbound_text,
            intent: row.inbound_intent,
            tier: row.inbound_tier,
          },
  };
}
