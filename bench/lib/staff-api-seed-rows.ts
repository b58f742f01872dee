import { copyLine } from './copy-rows.ts';
import { hash32, pick, recordRandom, seededUuid, type Random } from './seed-random.ts';
import { conversationOf, isInbound, KIND, messageIndexOf, type SeedPlan } from './staff-api-seed-plan.ts';
import { CITIES, INTENTS, inboundText, outboundText, personName } from './staff-api-text.ts';

/**
 * The rows of the staff API benchmark's database, as COPY text lines, drawn from a seed plan
 * (staff-api-seed-plan.ts). Each row depends only on the seed and its index.
 */

export interface Contact {
  name: string | null;
  phone: string | null;
  userId: string | null;
}

const pad2 = (n: number) => String(n).padStart(2, '0');
const iso = (ms: number) => new Date(ms).toISOString();

export function clusterId(plan: SeedPlan, cluster: number): string {
  return seededUuid(plan.settings.seed, KIND.cluster, cluster);
}

/** The business number routed to a cluster. */
function phoneNumberId(cluster: number): string {
  return cluster < 0 ? '109999999999999' : `10654035${String(cluster).padStart(7, '0')}`;
}

/** Agent `k` (1-based) of a cluster (0-based). */
export function agentOf(cluster: number, k: number): string {
  return `agent-${pad2(cluster + 1)}-${k}`;
}

export function conversationId(plan: SeedPlan, c: number): string {
  return seededUuid(plan.settings.seed, KIND.conversation, c);
}

export function messageId(plan: SeedPlan, m: number): string {
  return seededUuid(plan.settings.seed, KIND.message, m);
}

/** When message `m` was created, in ms: its second plus a fraction drawn from the seed. */
export function messageMs(plan: SeedPlan, m: number): number {
  return (plan.messageSec[m] as number) * 1000 + (hash32(plan.settings.seed, KIND.message, m, 5) % 1000);
}

/** The contact of each conversation: mostly WhatsApp numbers (unique), some username-only users. */
export function drawContacts(plan: SeedPlan): Contact[] {
  return Array.from({ length: plan.settings.conversations }, (_, c) => {
    const random = recordRandom(plan.settings.seed, KIND.contact, c);
    const name = random() < 0.9 ? personName(random) : null;
    if (random() < 0.03) return { name, phone: null, userId: `ig.user.${c}` };
    // A bijection of c onto nine digits: no two conversations of a number share a contact.
    return { name, phone: `628${100_000_000 + ((c * 104_729 + 12_345) % 900_000_000)}`, userId: null };
  });
}

export function clusterLines(plan: SeedPlan): string[] {
  return Array.from({ length: plan.settings.clusters }, (_, k) =>
    copyLine([
      clusterId(plan, k),
      `Admisi ${pad2(k + 1)} ${CITIES[k % CITIES.length]}`,
      phoneNumberId(k),
      iso(plan.startSec * 1000),
    ]),
  );
}

/** Each cluster's agents, and the first agent of the next cluster (some agents cover two clusters). */
export function memberLines(plan: SeedPlan): string[] {
  const { clusters, agentsPerCluster } = plan.settings;
  return Array.from({ length: clusters }, (_, k) => [
    ...Array.from({ length: agentsPerCluster }, (_, a) => copyLine([clusterId(plan, k), agentOf(k, a + 1)])),
    ...(clusters > 1 ? [copyLine([clusterId(plan, k), agentOf((k + 1) % clusters, 1)])] : []),
  ]).flat();
}

interface MessageContent {
  inbound: boolean;
  type: string;
  text: string | null;
  /** The agent who wrote an outbound message; null: the bot. */
  agent: string | null;
}

/** What message `m` says: the same answer for the message row and its conversation's last-message text. */
export function messageContent(plan: SeedPlan, m: number, c: number, contact: Contact): MessageContent {
  const random = recordRandom(plan.settings.seed, KIND.message, m);
  const inbound = isInbound(plan.settings.seed, m, m === plan.messageStart[c]);
  const cluster = plan.conversationCluster[c] as number;
  const media = random();
  const type = media < 0.03 ? 'image' : media < 0.04 ? 'document' : 'text';
  const agent =
    !inbound && cluster >= 0 && random() < 0.15
      ? agentOf(cluster, 1 + Math.floor(random() * plan.settings.agentsPerCluster))
      : null;
  const text =
    type !== 'text' ? null : inbound ? inboundText(random, contact) : outboundText(random, contact, agent);
  return { inbound, type, text, agent };
}

export const CONVERSATION_COLUMNS = [
  'id',
  'phone_number_id',
  'contact_key',
  'contact_phone',
  'contact_user_id',
  'contact_name',
  'cluster_id',
  'language',
  'capture',
  'last_inbound_at',
  'created_at',
  'updated_at',
  'status',
  'assigned_to',
  'assigned_at',
  'agent_active_at',
  'resolved_at',
  'unread_count',
  'last_activity_at',
  'last_message_text',
];

const IDLE_CAPTURE = JSON.stringify({
  state: 'idle',
  startedAt: null,
  lastActivityAt: null,
  reasked: { name: false, email: false },
});

/** Mostly resolved when old; open and pending ones are recent. */
function inboxStatus(random: Random, ageDays: number): 'open' | 'pending' | 'resolved' {
  const [open, pending] = ageDays < 3 ? [0.55, 0.8] : ageDays < 30 ? [0.2, 0.3] : [0.05, 0.08];
  const roll = random();
  return roll < open ? 'open' : roll < pending ? 'pending' : 'resolved';
}

function lastInbound(plan: SeedPlan, c: number): number {
  const first = plan.messageStart[c] as number;
  for (let m = (plan.messageStart[c + 1] as number) - 1; m > first; m--)
    if (isInbound(plan.settings.seed, m, false)) return m;
  return first;
}

export function* conversationLines(plan: SeedPlan, contacts: readonly Contact[]): Generator<string> {
  for (let c = 0; c < plan.settings.conversations; c++) {
    const random = recordRandom(plan.settings.seed, KIND.conversationState, c);
    const contact = contacts[c] as Contact;
    const cluster = plan.conversationCluster[c] as number;
    const last = (plan.messageStart[c + 1] as number) - 1;
    const lastMs = messageMs(plan, last);
    const createdMs = messageMs(plan, plan.messageStart[c] as number);
    const status = inboxStatus(random, (plan.endSec * 1000 - lastMs) / 86_400_000);
    const assignee =
      cluster >= 0 && random() < 0.45
        ? agentOf(cluster, 1 + Math.floor(random() * plan.settings.agentsPerCluster))
        : null;
    const lastContent = messageContent(plan, last, c, contact);
    yield copyLine([
      conversationId(plan, c),
      phoneNumberId(cluster),
      contact.phone ? `wa:${contact.phone}` : `user:${contact.userId}`,
      contact.phone,
      contact.userId,
      contact.name,
      cluster >= 0 ? clusterId(plan, cluster) : null,
      random() < 0.1 ? 'en' : 'id',
      IDLE_CAPTURE,
      iso(messageMs(plan, lastInbound(plan, c))),
      iso(createdMs),
      iso(lastMs),
      status,
      assignee,
      assignee ? iso(createdMs + (lastMs - createdMs) * random()) : null,
      assignee && status !== 'resolved' && random() < 0.5 ? iso(lastMs) : null,
      status === 'resolved' ? iso(lastMs + 60_000) : null,
      status !== 'resolved' && lastContent.inbound ? 1 + Math.floor(random() * 4) : 0,
      iso(lastMs),
      lastContent.text ?? `[${lastContent.type}]`,
    ]);
  }
}

export const MESSAGE_COLUMNS = [
  'id',
  'conversation_id',
  'direction',
  'provider_message_id',
  'type',
  'text',
  'payload',
  'provider_timestamp',
  'created_at',
  'processing_status',
  'attempts',
  'processed_at',
  'last_error',
  'tier',
  'intent',
  'score',
  'margin',
  'delivery_status',
  'template',
  'in_reply_to',
  'send_attempts',
  'author_user_id',
];

function inboundRow(plan: SeedPlan, m: number, c: number, contact: Contact, content: MessageContent) {
  const random = recordRandom(plan.settings.seed, KIND.message, m ^ 0x5a5a5a5a);
  const ms = messageMs(plan, m);
  const wamid = `wamid.seed.${m}`;
  const from = contact.phone ?? contact.userId;
  const body =
    content.text === null ? { [content.type]: { id: `media.${m}` } } : { text: { body: content.text } };
  const dead = random() < 0.0005;
  const tier = 1 + Math.floor(random() * 3);
  return [
    messageId(plan, m),
    conversationId(plan, c),
    'inbound',
    wamid,
    content.type,
    content.text,
    JSON.stringify({
      from,
      id: wamid,
      timestamp: String(Math.floor(ms / 1000)),
      type: content.type,
      ...body,
    }),
    iso(Math.floor(ms / 1000) * 1000),
    iso(ms),
    dead ? 'dead' : 'processed',
    dead ? 5 : 1,
    dead ? null : iso(ms + 300),
    dead ? 'classifier timed out' : null,
    dead ? null : tier,
    dead ? null : pick(random, INTENTS),
    dead ? null : Math.round((0.5 + random() / 2) * 1000) / 1000,
    dead ? null : Math.round(random() * 0.5 * 1000) / 1000,
    null,
    null,
    null,
    0,
    null,
  ];
}

/** The status of a reply at the provider: mostly read or delivered. */
function deliveryStatus(random: Random): string {
  const roll = random();
  return roll < 0.55 ? 'read' : roll < 0.85 ? 'delivered' : roll < 0.97 ? 'sent' : 'failed';
}

function outboundRow(plan: SeedPlan, m: number, c: number, contact: Contact, content: MessageContent) {
  const random = recordRandom(plan.settings.seed, KIND.message, m ^ 0x5a5a5a5a);
  const status = deliveryStatus(random);
  const to = contact.phone ?? contact.userId;
  let question = m - 1;
  while (question > (plan.messageStart[c] as number) && !isInbound(plan.settings.seed, question, false))
    question--;
  return [
    messageId(plan, m),
    conversationId(plan, c),
    'outbound',
    status === 'failed' ? null : `wamid.out.${m}`,
    content.type,
    content.text,
    JSON.stringify({ messaging_product: 'whatsapp', to, type: 'text', text: { body: content.text ?? '' } }),
    null,
    iso(messageMs(plan, m)),
    null,
    0,
    null,
    null,
    null,
    null,
    null,
    null,
    status,
    content.agent ? null : `${pick(random, INTENTS)}.answer`,
    content.agent ? null : messageId(plan, question),
    status === 'failed' ? 3 : 1,
    content.agent,
  ];
}

/** Every message in time order (the order a live system inserts them: `seq` follows time). */
export function* messageLines(plan: SeedPlan, contacts: readonly Contact[]): Generator<string> {
  for (const key of plan.messageOrder) {
    const m = messageIndexOf(key);
    const c = conversationOf(plan, m);
    const contact = contacts[c] as Contact;
    const content = messageContent(plan, m, c, contact);
    yield copyLine(
      content.inbound ? inboundRow(plan, m, c, contact, content) : outboundRow(plan, m, c, contact, content),
    );
  }
}
