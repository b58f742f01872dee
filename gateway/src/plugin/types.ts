import type { RequestHandler } from 'express';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import type { AuditWriter } from '../audit/audit-writer.ts';
import type { Clock } from '../clock.ts';
import type { CoreConfig } from '../config/core-config.ts';
import type { EnvSchema } from '../config/read-env.ts';
import type { Database } from '../db/database.ts';
import type { ApiAuthMode } from '../gate/config.ts';
import type { SessionIssuer } from '../gate/session-issuer.ts';
import type { SessionCheck, SessionResolver, SessionVerifier } from '../gate/session-verifier.ts';
import type { ErrorCatalogue } from '../errors/catalogue.ts';
import type { PluginCommand } from './command.ts';
import type { RouteRegistrar } from './route-table.ts';

/**
 * The plugin contract (ADR 0001). A plugin is a plain typed object; it never imports another plugin's files
 * and receives everything it needs through `register(ctx)`.
 */
export interface GatewayPlugin<S extends EnvSchema = EnvSchema> {
  /** Prefixes the plugin's routes, tables, error codes, metrics and log fields. */
  readonly id: string;
  /** Plugins that must be enabled and registered before this one. */
  readonly dependsOn: readonly string[];
  /** The environment variables the plugin reads; parsed at boot with every other variable. */
  readonly config: S;
  /** Folder of the plugin's plain-SQL migrations (`migrations/<id>/`), if it has tables. */
  readonly migrations?: string;
  /** Every error code the plugin may answer with; each code starts with `<id>.`. */
  readonly errors: ErrorCatalogue;
  /** `gatehouse` subcommands the plugin contributes (e.g. `admin create`). */
  readonly commands?: ReadonlyArray<PluginCommand<z.output<S>>>;
  register(ctx: PluginContext<z.output<S>>): void | Promise<void>;
}

/**
 * What a plugin is without its code: its id, dependencies and settings schema. Each plugin exports one
 * from its `manifest.ts`, which loads nothing but the schema, so the operator can validate an AuthConfig
 * against every plugin's settings without loading any plugin's runtime code.
 */
export type PluginManifest<S extends EnvSchema = EnvSchema> = Pick<
  GatewayPlugin<S>,
  'id' | 'dependsOn' | 'config'
>;

/** Typed helper so a plugin's `register` sees its own parsed config. */
export function definePlugin<S extends EnvSchema>(plugin: GatewayPlugin<S>): GatewayPlugin<S> {
  return plugin;
}

export interface PluginContext<C> {
  readonly id: string;
  readonly config: Readonly<C>;
  /** The core settings, read-only (a plugin reads APP_ENV through `isDevelopment(ctx.core)`). */
  readonly core: Readonly<CoreConfig>;
  readonly logger: Logger;
  readonly db: Database;
  readonly routes: RouteRegistrar;
  readonly audit: AuditWriter;
  readonly metrics: Registry;
  readonly clock: Clock;
  readonly hooks: PluginHooks;
  /**
   * The API gate's phase (API_AUTH_MODE, docs/api-auth-gate.md), for transports the gate's HTTP layers do
   * not cover: a socket.io handshake refuses, audits or accepts a bad session as the gate would.
   */
  readonly gate: { readonly mode: ApiAuthMode };
  /**
   * Session tokens: `verify` is gate layer 2's verifier (for other transports: the socket.io handshake),
   * whose identity is the session resolver's answer (current roles), never the token's copy;
   * `issue` mints the gateway's own Auth.js-format tokens (the auth plugin's session cookie).
   */
  readonly sessions: Pick<SessionVerifier, 'verify'> & SessionIssuer & { readonly cookieName: string };
}

/**
 * The pipeline slots (steps 5-7 of http/pipeline.ts) that extensions may fill. They run after request
 * id/logging and before the route handler, in this order. Empty slots cost nothing per request.
 */
export const PIPELINE_SLOTS = ['gate.layer1', 'gate.layer2', 'audit.sensitive'] as const;
export type PipelineSlot = (typeof PIPELINE_SLOTS)[number];

export type HealthStatus = 'ok' | 'degraded' | 'down';
export interface HealthReport {
  status: HealthStatus;
  [detail: string]: unknown;
}

export interface ReadyInfo {
  /** The public HTTP server (socket.io attaches here). */
  server: Server;
}

/** Every hook a plugin may use: the ways a plugin extends the core are this one list (ADR 0001). */
export interface PluginHooks {
  /** Adds middleware to a pipeline slot. */
  pipeline(slot: PipelineSlot, handler: RequestHandler): void;
  /** Contributes to `GET /api/v1/health/full` under the plugin's id. */
  health(check: () => HealthReport | Promise<HealthReport>): void;
  /** Runs once the public server listens. */
  onReady(fn: (info: ReadyInfo) => void | Promise<void>): void;
  /**
   * Runs when shutdown begins: the server has stopped accepting, and in-flight requests drain meanwhile.
   * The place to end long-lived connections the drain would otherwise wait for until SHUTDOWN_TIMEOUT_MS
   * (an upgraded WebSocket is a connection of the HTTP server), so their clients reconnect elsewhere at
   * once. Hooks run concurrently, a failure is logged, and the drain deadline bounds them too.
   */
  onShutdown(fn: () => void | Promise<void>): void;
  /** Runs at shutdown after in-flight requests drained, in reverse registration order. */
  onClose(fn: () => void | Promise<void>): void;
  /** Adds a check to every session verification; returning false rejects it (revoked session ids). */
  sessionCheck(check: SessionCheck): void;
  /**
   * Sets the one source of truth for the identity behind a verified session (the auth plugin: the
   * account's current roles). It runs on every verification, cached token or not, after the checks, so
   * the gate's `req.identity`, `ctx.sessions.verify` and the upstream headers all carry its answer; null
   * rejects the session. At most one plugin may set it: a second refuses boot, naming both.
   */
  sessionResolver(resolver: SessionResolver): void;
}
