import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { routingStore } from '../store/routing-store.ts';

/** What the staff routing commands need: the database and the clock. */
export interface RoutingDeps {
  db: Pick<Database, 'query'>;
  clock: Clock;
}

/**
 * Creates a cluster, optionally routing a business number to it: the conversations that already came in
 * on that number join it. Null when the name or the number is taken.
 */
export async function createCluster(
  deps: RoutingDeps,
  cluster: { name: string; phoneNumberId: string | null },
): Promise<string | null> {
  const id = await routingStore.createCluster(deps.db, cluster, deps.clock.now());
  if (id !== null && cluster.phoneNumberId) {
    await routingStore.routeConversations(deps.db, id, cluster.phoneNumberId);
  }
  return id;
}

/** Adds a staff user to a cluster: `added` when they were not a member yet, `missing` when no such cluster. */
export async function addClusterMember(
  deps: RoutingDeps,
  clusterId: string,
  userId: string,
): Promise<'added' | 'member' | 'missing'> {
  const added = await routingStore.addMember(deps.db, clusterId, userId);
  if (!(await routingStore.clusterExists(deps.db, clusterId))) return 'missing';
  return added ? 'added' : 'member';
}

/** Adds a global recipient (notified of every cluster's escalations); true when they are new. */
export function addGlobalRecipient(deps: RoutingDeps, userId: string): Promise<boolean> {
  return routingStore.addGlobalRecipient(deps.db, userId, deps.clock.now());
}
