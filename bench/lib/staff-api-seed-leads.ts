import { copyLine } from './copy-rows.ts';
import { exponential, hash32, pickWeighted, recordRandom, seededUuid, type Random } from './seed-random.ts';
import { growingTime, KIND, type SeedPlan } from './staff-api-seed-plan.ts';
import { clusterId, conversationId, messageMs, type Contact } from './staff-api-seed-rows.ts';
import { emailFor, leadNote, personName, phoneNumber } from './staff-api-text.ts';

/**
 * The leads of the staff API benchmark's database: about half the conversations have one (captured by the
 * bot), the rest are manual leads staff entered or imported. Inserted in creation order, as they arrive.
 */

const LEAD_INDEX_BITS = 2 ** 21;

/** Which conversations have a lead (about half), and every lead's index in creation order. */
export interface LeadPlan {
  /** The conversation of lead j, or -1 for a manual lead; leads j ≥ this array's length are manual. */
  conversationOfLead: Int32Array;
  /** Every lead, (seconds since the start) × 2^21 + lead index, ascending. */
  order: Float64Array;
  createdSec: Float64Array;
}

export function drawLeadPlan(plan: SeedPlan): LeadPlan {
  const { seed, conversations, leads } = plan.settings;
  if (leads >= LEAD_INDEX_BITS) throw new Error('too many leads for the sort key');
  const withLead: number[] = [];
  for (let c = 0; c < conversations && withLead.length < leads; c++)
    if ((hash32(seed, KIND.lead, c, 7) & 1) === 0) withLead.push(c);
  const createdSec = Float64Array.from({ length: leads }, (_, j) => {
    const random = recordRandom(seed, KIND.leadTimes, j);
    const c = withLead[j];
    // A captured lead appears minutes into its conversation; a manual one any time, more of them lately.
    return c === undefined
      ? Math.floor(growingTime(random, plan.startSec, plan.endSec))
      : Math.floor(messageMs(plan, plan.messageStart[c] as number) / 1000 + 60 + random() * 3600);
  });
  const order = Float64Array.from(createdSec, (sec, j) => (sec - plan.startSec) * LEAD_INDEX_BITS + j).sort();
  return { conversationOfLead: Int32Array.from(withLead), order, createdSec };
}

/** The lead status rule of migrations/messaging/0002_staff_api.sql (`messaging_lead_status`). */
function computedStatus(name: string | null, email: string | null, phone: string | null): string {
  return name === null || email === null ? 'incomplete' : phone === null ? 'captured' : 'qualified';
}

/** A status staff set by hand on about a quarter of the leads. */
function override(random: Random): string | null {
  const roll = random();
  if (roll < 0.1) return 'contacted';
  if (roll < 0.14) return 'converted';
  if (roll < 0.22) return 'disqualified';
  if (roll < 0.25) return 'qualified';
  return null;
}

export const LEAD_COLUMNS = [
  'id',
  'conversation_id',
  'name',
  'email',
  'phone',
  'status',
  'created_at',
  'updated_at',
  'captured_at',
  'source',
  'cluster_id',
  'status_override',
  'notes',
  'version',
];

interface LeadFields {
  name: string | null;
  email: string | null;
  phone: string | null;
  cluster: number;
}

function fields(plan: SeedPlan, random: Random, c: number, contacts: readonly Contact[]): LeadFields {
  if (c >= 0) {
    const contact = contacts[c] as Contact;
    const name = random() < 0.85 ? (contact.name ?? personName(random)) : null;
    return {
      name,
      email: name && random() < 0.6 ? emailFor(random, name) : null,
      phone: contact.phone && random() < 0.8 ? contact.phone : null,
      cluster: plan.conversationCluster[c] as number,
    };
  }
  const name = random() < 0.97 ? personName(random) : null;
  return {
    name,
    email: name && random() < 0.75 ? emailFor(random, name) : null,
    phone: random() < 0.85 ? phoneNumber(random) : null,
    cluster: random() < 0.03 ? -1 : pickWeighted(random, plan.clusterWeights),
  };
}

export function* leadLines(plan: SeedPlan, leads: LeadPlan, contacts: readonly Contact[]): Generator<string> {
  const { seed } = plan.settings;
  for (const key of leads.order) {
    const j = key % LEAD_INDEX_BITS;
    const random = recordRandom(seed, KIND.lead, j);
    const c = j < leads.conversationOfLead.length ? (leads.conversationOfLead[j] as number) : -1;
    const lead = fields(plan, random, c, contacts);
    const status = computedStatus(lead.name, lead.email, lead.phone);
    const createdMs = (leads.createdSec[j] as number) * 1000 + (hash32(seed, KIND.leadTimes, j, 1) % 1000);
    // Last touched some days after creation (never after the end of the data).
    const age = plan.endSec * 1000 - createdMs;
    const later = exponential(random, 10 * 86_400_000);
    const updatedMs = createdMs + (later < age ? later : random() * age);
    const statusOverride = override(random);
    yield copyLine([
      seededUuid(seed, KIND.lead, j),
      c >= 0 ? conversationId(plan, c) : null,
      lead.name,
      lead.email,
      lead.phone,
      status,
      new Date(createdMs).toISOString(),
      new Date(updatedMs).toISOString(),
      status === 'incomplete' ? null : new Date(Math.min(createdMs + 120_000, updatedMs)).toISOString(),
      c >= 0 ? 'whatsapp' : 'manual',
      lead.cluster >= 0 ? clusterId(plan, lead.cluster) : null,
      statusOverride,
      random() < 0.12 ? leadNote(random) : null,
      statusOverride ? 2 : 1,
    ]);
  }
}
