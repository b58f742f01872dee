/**
 * The plugin API: the one core module a plugin may import (ADR 0001, "The plugin API"; `eslint.config.js`
 * refuses any other import from `gateway/src/` inside `plugins/`).
 *
 * What belongs here: the contract a plugin is declared with (`definePlugin`, its context, commands, error
 * catalogue, environment-variable schemas), the types of what `ctx` hands over (database, logger, clock,
 * audit writer, route registrar, sessions), and the few core building blocks a plugin runs itself
 * (background loops, LISTEN, the failure-audit sweep, boot errors, storable text, core error codes and the
 * session header the gate forwards). Everything else a plugin needs comes through `ctx`. Add a name only
 * when a plugin needs it, and prefer a field on `ctx` for anything that holds state of the running gateway.
 */

// The contract: the plugin object, its context, its commands and its migrations folder.
export { definePlugin } from './plugin/types.ts';
export type { PluginContext, PluginManifest } from './plugin/types.ts';
export type { CommandContext, PluginCommand } from './plugin/command.ts';
export { EX_USAGE, optionProblems, printResult, usageError } from './plugin/command.ts';
export type { ErrorFormat, RouteRegistrar } from './plugin/route-table.ts';
export { migrationsDir } from './plugin/migrations-dir.ts';

// Settings: the schemas of a plugin's environment variables, and the core settings `ctx.core` holds.
export { boolean, integer, list, oneOf, secret } from './config/env-schema.ts';
export { isDevelopment } from './config/core-config.ts';

// Errors: a plugin's own catalogue, the core's codes, and the problem+json shape they are answered with.
export { defineErrors } from './errors/catalogue.ts';
export { coreErrors } from './errors/core-errors.ts';
export { GatewayError, isGatewayError } from './errors/gateway-error.ts';
export { toProblem } from './errors/problem.ts';
export { PROBLEM_MEDIA_TYPE, ProblemSchema, problemResponse } from './openapi/problem-response.ts';
export { BootError } from './boot-error.ts';

// What `ctx` hands over, by type.
export type { AuditWriter } from './audit/audit-writer.ts';
export type { Clock } from './clock.ts';
export type { Database, NamedStatement, Queryable } from './db/database.ts';
export { namedStatement } from './db/database.ts';
export type { Logger } from './logger.ts';
export type { ApiAuthMode } from './gate/config.ts';
export type { SessionIdentity, SessionResolver } from './gate/session-verifier.ts';

// Building blocks a plugin runs itself.
export { startLoop } from './jobs/loop.ts';
export type { Loop } from './jobs/loop.ts';
export { listen } from './db/listener.ts';
export type { Listener, ListenOptions } from './db/listener.ts';
export { startFailureAudit } from './gate/failure-audit.ts';
export type { FailureAudit } from './gate/failure-audit.ts';
export { isCleanIdentifier, storableText } from './text/storable-text.ts';
export { sameSecret } from './text/same-secret.ts';
export { SESSION_HEADER } from './gate/gate.ts';
