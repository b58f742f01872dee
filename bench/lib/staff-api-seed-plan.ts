import {
  exponential,
  hash32,
  normal,
  pickWeighted,
  recordRandom,
  zipfCumulative,
  type Random,
} from './seed-random.ts';

/** How big the staff API benchmark's database is, and the seed it is drawn from (bench/staff-api.ts). */
export interface SeedSettings {
  seed: number;
  clusters: number;
  agentsPerCluster: number;
  conversations: number;
  messages: number;
  leads: number;
  /** The newest timestamp of the data; the oldest is `days` before it. Fixed, so the data is too. */
  endsAt: string;
  days: number;
}

/** Kinds of record, each with its own stream of draws (seed-random.ts, `recordRandom`). */
export const KIND = {
  cluster: 1,
  conversation: 2,
  conversationTimes: 3,
  message: 4,
  lead: 5,
  leadTimes: 6,
  createdAt: 7,
  messageCount: 8,
  contact: 9,
  conversationState: 10,
} as const;

/** Messages of one conversation sit at consecutive indexes; a sort key packs (time, index) in one double. */
const INDEX_BITS = 2 ** 23;

/**
 * The shape of the data, decided before a row is written: when each conversation started (ascending: the
 * order they are inserted in), its cluster (a few big clusters, many small), how many messages it has (a
 * long tail: most have a handful, a few thousands) and when each was sent; every message in global time
 * order, as a live system inserts them; and which conversations have a lead.
 */
export interface SeedPlan {
  settings: SeedSettings;
  startSec: number;
  endSec: number;
  /** Cumulative cluster weights (zipf-like). */
  clusterWeights: number[];
  conversationCreated: Float64Array;
  /** -1: routed to no cluster. */
  conversationCluster: Int16Array;
  /** The first message index of each conversation; one more entry: the total. */
  messageStart: Int32Array;
  /** Every message, (seconds since `startSec`) × 2^23 + message index, ascending. */
  messageOrder: Float64Array;
  /** The seconds of every message, by message index. */
  messageSec: Float64Array;
}

/** A time in the window, denser towards its end (the line grows): the density rises linearly. */
export function growingTime(random: Random, startSec: number, endSec: number): number {
  return startSec + (endSec - startSec) * Math.sqrt(random());
}

/** Whether message `index` is inbound: the first of each conversation is, then about half. */
export function isInbound(seed: number, index: number, first: boolean): boolean {
  return first || (hash32(seed, KIND.message, index, 0) & 0xffff) / 0x10000 < 0.52;
}

function messageCounts(settings: SeedSettings): Int32Array {
  const { conversations, messages, seed } = settings;
  if (messages < conversations) throw new Error('at least one message per conversation');
  // One message each, the rest shared by lognormal weights (σ 1.3: the busiest have ~100× the median).
  const weights = new Float64Array(conversations);
  let total = 0;
  for (let c = 0; c < conversations; c++) {
    weights[c] = Math.exp(1.3 * normal(recordRandom(seed, KIND.messageCount, c)));
    total += weights[c] as number;
  }
  const counts = new Int32Array(conversations);
  let assigned = 0;
  const extra = messages - conversations;
  for (let c = 0; c < conversations; c++) {
    counts[c] = 1 + Math.floor(((weights[c] as number) / total) * extra);
    assigned += counts[c] as number;
  }
  for (let c = 0; assigned < messages; c = (c + 1) % conversations) {
    counts[c] = (counts[c] as number) + 1;
    assigned++;
  }
  return counts;
}

/** Seconds of each message of conversation `c`: from its creation, ascending, at least a second apart. */
function conversationTimes(plan: SeedPlan, c: number, count: number, into: Float64Array, at: number): void {
  const random = recordRandom(plan.settings.seed, KIND.conversationTimes, c);
  const created = plan.conversationCreated[c] as number;
  // Longer conversations last longer: a few hours for a handful of messages, weeks for thousands.
  const room = Math.max(0, plan.endSec - created - count);
  const span = Math.min(exponential(random, 6 * 3600) * Math.sqrt(count), room);
  const draws = Float64Array.from({ length: count }, (_, k) => (k === 0 ? 0 : random() * span)).sort();
  let previous = created - 1;
  for (let k = 0; k < count; k++) {
    const sec = Math.max(Math.floor(created + (draws[k] as number)), previous + 1);
    into[at + k] = sec;
    previous = sec;
  }
}

/** Draws the plan (a few seconds for the full size; the arrays take ~150 MB). */
export function drawPlan(settings: SeedSettings): SeedPlan {
  const endSec = Math.floor(Date.parse(settings.endsAt) / 1000);
  const startSec = endSec - settings.days * 86_400;
  if (settings.messages >= INDEX_BITS) throw new Error('too many messages for the sort key');
  const clusterWeights = zipfCumulative(settings.clusters, 0.8);
  const conversationCreated = Float64Array.from({ length: settings.conversations }, (_, c) =>
    // Conversations start up to a day before the end, so each has room for its messages.
    Math.floor(growingTime(recordRandom(settings.seed, KIND.createdAt, c), startSec, endSec - 86_400)),
  ).sort();
  const conversationCluster = Int16Array.from({ length: settings.conversations }, (_, c) => {
    const random = recordRandom(settings.seed, KIND.conversation, c);
    return random() < 0.01 ? -1 : pickWeighted(random, clusterWeights);
  });
  const counts = messageCounts(settings);
  const messageStart = new Int32Array(settings.conversations + 1);
  for (let c = 0; c < settings.conversations; c++)
    messageStart[c + 1] = (messageStart[c] as number) + (counts[c] as number);
  const plan: SeedPlan = {
    settings,
    startSec,
    endSec,
    clusterWeights,
    conversationCreated,
    conversationCluster,
    messageStart,
    messageOrder: new Float64Array(settings.messages),
    messageSec: new Float64Array(settings.messages),
  };
  for (let c = 0; c < settings.conversations; c++) {
    conversationTimes(plan, c, counts[c] as number, plan.messageSec, messageStart[c] as number);
  }
  for (let m = 0; m < settings.messages; m++) {
    plan.messageOrder[m] = ((plan.messageSec[m] as number) - startSec) * INDEX_BITS + m;
  }
  plan.messageOrder.sort();
  return plan;
}

/** The message index a sort key of `messageOrder` holds. */
export function messageIndexOf(key: number): number {
  return key % INDEX_BITS;
}

/** The conversation message `m` belongs to (binary search over `messageStart`). */
export function conversationOf(plan: SeedPlan, m: number): number {
  let low = 0;
  let high = plan.settings.conversations - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if ((plan.messageStart[mid] as number) <= m) low = mid;
    else high = mid - 1;
  }
  return low;
}
