import { z } from 'zod';
import { integer } from '../../../gateway/src/plugin-api.ts';

/** The realtime plugin's settings (docs/configuration.md, "realtime"; plugins/realtime/README.md, "Settings"). */
export const realtimeConfigSchema = z.object({
  /** How long events stay replayable; older ones are pruned and a client that missed them must resync. */
  REALTIME_RETENTION_HOURS: integer(24, 1, 720),
  /** How often the background loop prunes, and how many rows one prune statement deletes at most. */
  REALTIME_PRUNE_INTERVAL_MS: integer(60_000, 1_000, 3_600_000),
  REALTIME_PRUNE_BATCH: integer(5_000, 100, 100_000),
  /**
   * The most events (of every room) a reconnecting client may be behind; further behind, it is told to
   * resync instead of being sent a replay that would take longer than reloading.
   */
  REALTIME_REPLAY_MAX_EVENTS: integer(50_000, 100, 1_000_000),
  /** How often each open socket's session and room entitlements are checked again (revocation, roles). */
  REALTIME_RECHECK_INTERVAL_MS: integer(2_000, 100, 60_000),
  /** How often the listener proves its LISTEN connection alive; a silent connection is replaced. */
  REALTIME_HEARTBEAT_MS: integer(10_000, 100, 300_000),
  /** Rooms one socket may be in (its own user and role rooms included). */
  REALTIME_MAX_ROOMS_PER_SOCKET: integer(200, 10, 10_000),
});

export type RealtimeEnv = z.output<typeof realtimeConfigSchema>;
