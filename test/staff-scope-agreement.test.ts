/**
 * The staff API (messaging) and the realtime rooms decide who sees a conversation with the same rule: one
 * written in plugins/messaging/src/domain/staff-scope.ts, applied by the realtime plugin to its rooms. The two
 * plugins cannot import each other, so this suite holds them to each other over every kind of caller.
 */
import { describe, expect, it } from 'vitest';
import {
  ADMIN_ROLES as STAFF_ADMIN_ROLES,
  inScope,
  staffScope,
} from '../plugins/messaging/src/domain/staff-scope.ts';
import { ADMIN_ROLES as ROOM_ADMIN_ROLES, mayJoin } from '../plugins/realtime/src/domain/entitlement.ts';

const CLUSTER_A = '00000000-0000-4000-8000-00000000000a';
const CLUSTER_B = '00000000-0000-4000-8000-00000000000b';
const CONVERSATION = '00000000-0000-4000-8000-0000000000c1';

describe('who sees a conversation', () => {
  it('the same roles are admins in both', () => {
    expect([...ROOM_ADMIN_ROLES].sort()).toEqual([...STAFF_ADMIN_ROLES].sort());
  });

  const callers = [
    { roles: ['*'], clusters: [] },
    { roles: ['messaging:admin'], clusters: [] },
    { roles: ['agent'], clusters: [CLUSTER_A] },
    { roles: ['agent'], clusters: [CLUSTER_B] },
    { roles: [], clusters: [CLUSTER_A, CLUSTER_B] },
    { roles: ['kyc:admin'], clusters: [] },
  ];
  const conversationClusters = [CLUSTER_A, CLUSTER_B, null];

  it.each(callers)('roles %j: the staff API and the conversation room agree', ({ roles, clusters }) => {
    const identity = { sub: 'staff-1', email: null, roles, sid: null };
    for (const cluster of conversationClusters) {
      const api = inScope(staffScope(identity, clusters), cluster);
      const room = mayJoin(
        identity,
        { name: `conversation:${CONVERSATION}`, kind: 'conversation', id: CONVERSATION },
        {
          clusters: new Set(clusters),
          globalRecipient: false,
          conversationClusters: new Map([[CONVERSATION, cluster]]),
        },
      );
      expect({ cluster, api }).toEqual({ cluster, api: room });
    }
  });
});
