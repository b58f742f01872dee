import { staffGet, type BenchStaff } from './staff-api-client.ts';
import type { SeedFacts } from './staff-api-seed.ts';

/** One request the dashboard makes, measured on its own: who sends it and which path (with its query). */
export interface Scenario {
  key: string;
  name: string;
  staff: BenchStaff;
  /** The path measured; the deep pages find theirs by following the cursor first. */
  path(gatewayUrl: string): Promise<string>;
  /** Why the answer would make the figures meaningless (an empty page, ...), or null. */
  check(body: unknown): string | null;
}

interface Page {
  items?: unknown[];
  nextCursor?: string | null;
}

export const ADMIN: BenchStaff = { sub: 'bench-admin', roles: ['messaging:admin'] };

const DAY_MS = 86_400_000;
/** How many pages the deep-page scenarios follow before the page they measure. */
export const DEEP_PAGES = 100;

function nonEmptyPage(body: unknown): string | null {
  const page = body as Page;
  if (!Array.isArray(page.items)) return 'the answer has no items';
  return page.items.length === 0 ? 'the page is empty' : null;
}

function withQuery(path: string, query: Record<string, string>): string {
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}

/** The path of the page after `pages` pages of `path`, following each page's `nextCursor`. */
async function deepPath(
  gatewayUrl: string,
  staff: BenchStaff,
  path: string,
  query: Record<string, string>,
  pages: number,
) {
  let cursor: string | null = null;
  for (let page = 0; page < pages; page++) {
    const body: Page = await staffGet<Page>(
      gatewayUrl,
      staff,
      withQuery(path, cursor ? { ...query, cursor } : query),
    );
    cursor = body.nextCursor ?? null;
    if (!cursor) throw new Error(`${path} has only ${page + 1} pages, fewer than ${pages + 1}`);
  }
  return withQuery(path, { ...query, cursor: cursor as string });
}

/** The scenarios of `npm run bench:staff-api` (bench/README.md), over the seeded data `facts` describe. */
export function staffApiScenarios(facts: SeedFacts): Scenario[] {
  const agent: BenchStaff = { sub: facts.agent, roles: ['agent'] };
  const end = Date.parse(facts.endsAt);
  const iso = (ms: number) => new Date(ms).toISOString();
  const leadFilter = {
    status: 'contacted',
    cluster: facts.agentCluster,
    createdFrom: iso(end - 90 * DAY_MS),
    createdTo: iso(end),
  };
  const deepLeadFilter = { ...leadFilter, createdFrom: iso(end - 365 * DAY_MS) };
  const summary = { from: iso(end - 90 * DAY_MS), to: iso(end) };
  const fixed = (path: string) => () => Promise.resolve(path);
  return [
    {
      key: 'inbox-admin',
      name: 'inbox, first page, admin',
      staff: ADMIN,
      path: fixed('/api/v1/agent/conversations'),
      check: nonEmptyPage,
    },
    {
      key: 'inbox-agent',
      name: 'inbox, first page, agent of one cluster',
      staff: agent,
      path: fixed('/api/v1/agent/conversations'),
      check: nonEmptyPage,
    },
    {
      key: 'leads-filtered',
      name: 'leads v2, status + cluster + 90 days created, admin',
      staff: ADMIN,
      path: fixed(withQuery('/api/v1/leads/v2', leadFilter)),
      check: nonEmptyPage,
    },
    {
      key: 'leads-deep',
      name: `leads v2, page ${DEEP_PAGES + 1} of status + cluster + 365 days, admin`,
      staff: ADMIN,
      path: (url) => deepPath(url, ADMIN, '/api/v1/leads/v2', deepLeadFilter, DEEP_PAGES),
      check: nonEmptyPage,
    },
    {
      key: 'inbox-deep',
      name: `inbox, page ${DEEP_PAGES + 1}, agent of one cluster`,
      staff: agent,
      path: (url) => deepPath(url, agent, '/api/v1/agent/conversations', {}, DEEP_PAGES),
      check: nonEmptyPage,
    },
    {
      key: 'summary-admin',
      name: 'leads v2 summary, 90 days, admin (every cluster)',
      staff: ADMIN,
      path: fixed(withQuery('/api/v1/leads/v2/summary', summary)),
      check: (body) => (body && typeof body === 'object' ? null : 'no summary'),
    },
    {
      key: 'summary-agent',
      name: 'leads v2 summary, 90 days, agent of one cluster',
      staff: agent,
      path: fixed(withQuery('/api/v1/leads/v2/summary', summary)),
      check: (body) => (body && typeof body === 'object' ? null : 'no summary'),
    },
    {
      key: 'messages',
      name: `one conversation's last 50 messages (of ${facts.conversation.messages}), agent`,
      staff: agent,
      path: fixed(`/api/v1/agent/conversations/${facts.conversation.id}/messages?limit=50`),
      check: (body) => {
        const items = (body as Page).items;
        return Array.isArray(items) && items.length === 50 ? null : 'not 50 messages';
      },
    },
  ];
}

/** A harness check before the staff routes exist: the gated identity route, same gate, same load. */
export function gateScenario(): Scenario {
  return {
    key: 'gate-identity',
    name: 'gated identity route (harness check)',
    staff: ADMIN,
    path: () => Promise.resolve('/api/v1/gate/identity'),
    check: (body) => (body && typeof body === 'object' ? null : 'no identity'),
  };
}
