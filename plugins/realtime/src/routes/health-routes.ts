import type { RouteRegistrar } from '../../../../gateway/src/plugin-api.ts';
import type { RealtimeStatus } from '../service/realtime-service.ts';

/**
 * `GET /api/v1/health/realtime`: exempt and cheap (memory only, no query), for load balancers and
 * dashboards to see whether this replica's event bridge is up (README, "Health and metrics").
 */
export function registerHealthRoutes(routes: RouteRegistrar, status: () => RealtimeStatus): void {
  routes.add({
    method: 'GET',
    path: '/api/v1/health/realtime',
    exempt: true,
    handler(_req, res) {
      const now = status();
      res.json({
        pgBridge: { connected: now.listenerConnected },
        socketio: { namespaces: now.namespaces },
        eventCount: now.eventsDelivered,
        lastNotifyAt: now.lastNotifyAt?.toISOString() ?? null,
        listenerReconnects: now.listenerReconnects,
        connectedSockets: now.connectedSockets,
      });
    },
  });
}
