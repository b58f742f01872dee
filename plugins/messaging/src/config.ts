import { z } from 'zod';
import { integer, secret } from '../../../gateway/src/plugin-api.ts';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** An IANA time zone name the runtime knows (PostgreSQL's own list is checked again at boot). */
function isTimeZone(name: string): boolean {
  return name === 'UTC' || Intl.supportedValuesOf('timeZone').includes(name);
}

/** The messaging plugin's settings (docs/configuration.md, "messaging"). */
export const messagingConfigSchema = z
  .object({
    /** `GET /webhook/chat` answers the subscription challenge only for this token (unset: always 403). */
    WEBHOOK_VERIFY_TOKEN: secret(z.string().min(1).optional()),
    /** When set, `X-Hub-Signature-256` must verify over the raw body of every `POST /webhook/chat`. */
    WEBHOOK_APP_SECRET: secret(z.string().min(1).optional()),
    /** The provider's Graph-compatible send API: POST {base}/{phone_number_id}/messages. */
    MESSAGING_API_BASE_URL: httpUrl.default('https://graph.facebook.com/v21.0'),
    MESSAGING_API_TOKEN: secret(z.string().min(1).optional()),
    MESSAGING_SEND_TIMEOUT_MS: integer(10_000, 100, 120_000),
    /**
     * How long a reply being sent stays with the worker sending it; after a crash, its replies (and the later
     * ones of their conversations) wait this long before another worker sends them.
     */
    MESSAGING_SEND_LEASE_MS: integer(70_000, 1_000, 3_600_000),
    MESSAGING_SEND_MAX_ATTEMPTS: integer(8, 1, 100),
    /** The language-model tier (OpenAI-compatible chat completions); unset = the tier is skipped. */
    LLM_BASE_URL: httpUrl.optional(),
    LLM_MODEL: z.string().min(1).optional(),
    LLM_API_KEY: secret(z.string().min(1).optional()),
    LLM_TIMEOUT_MS: integer(1_500, 50, 60_000),
    /** The processing queue: how often idle workers look for work, how many conversations at once. */
    MESSAGING_WORKER_INTERVAL_MS: integer(250, 10, 60_000),
    MESSAGING_WORKER_CONCURRENCY: integer(2, 1, 64),
    /** Conversations whose next message one processing transaction takes at most. */
    MESSAGING_BATCH_SIZE: integer(50, 1, 1000),
    /** Processing attempts of one inbound message before it is dead-lettered. */
    MESSAGING_MAX_ATTEMPTS: integer(5, 1, 100),
    /** How long the bot stays silent on a conversation after an agent's last reply or take (README, "Handoff"). */
    MESSAGING_HANDOFF_IDLE_MS: integer(1_800_000, 1_000, 7 * 24 * 3_600_000),
    /** The most rows one CSV export of leads may hold. */
    MESSAGING_EXPORT_MAX_ROWS: integer(100_000, 1, 1_000_000),
    /**
     * The zone the leads summary's daily counts are kept in: summaries asked in it are summed from the
     * counts, other zones scan the leads (README, "Leads").
     */
    MESSAGING_SUMMARY_TIME_ZONE: z
      .string()
      .refine(isTimeZone, { error: 'must be an IANA time zone name (e.g. UTC, Asia/Jakarta)' })
      .default('UTC'),
    /** How often the summary's pending count changes are folded into its counts. */
    MESSAGING_SUMMARY_COMPACT_MS: integer(10_000, 100, 3_600_000),
    /** How often the follow-up pass schedules what the rules call for and sends the due ones (README, "Follow-ups"). */
    MESSAGING_FOLLOW_UP_INTERVAL_MS: integer(60_000, 10, 3_600_000),
    /** The external knowledge service's FAQ list (README, "FAQ"); unset: no sync. */
    FAQ_SYNC_URL: httpUrl.optional(),
    /** Sent as `Authorization: Bearer <token>` to FAQ_SYNC_URL; never logged. */
    FAQ_SYNC_TOKEN: secret(z.string().min(1).optional()),
    /** How often the FAQ syncs on its own; 0: only on demand (`POST /api/v1/faq/sync`). */
    FAQ_SYNC_INTERVAL_MS: integer(0, 0, 7 * 24 * 3_600_000),
    /** One fetch of the FAQ list, from the request to the last byte of the answer. */
    FAQ_SYNC_TIMEOUT_MS: integer(10_000, 100, 120_000),
    /** The largest FAQ list accepted, in bytes; a larger answer fails the run. */
    FAQ_SYNC_MAX_BYTES: integer(5_242_880, 1_024, 104_857_600),
    /** How often the knowledge base's gaps are collected and re-checked (README, "Gaps"); 0: only on demand. */
    MESSAGING_KB_GAP_INTERVAL_MS: integer(300_000, 0, 7 * 24 * 3_600_000),
  })
  .superRefine((env, ctx) => {
    // A lease that can end during a send would let a second worker send the same reply while it is in flight.
    if (env.MESSAGING_SEND_LEASE_MS <= env.MESSAGING_SEND_TIMEOUT_MS)
      ctx.addIssue({
        code: 'custom',
        path: ['MESSAGING_SEND_LEASE_MS'],
        message: `must be longer than MESSAGING_SEND_TIMEOUT_MS (${env.MESSAGING_SEND_TIMEOUT_MS})`,
      });
  });

export type MessagingEnv = z.output<typeof messagingConfigSchema>;
