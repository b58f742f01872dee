/**
 * Core building blocks that suites drive directly, for the suites beside a plugin: a plugin's files, its
 * suites included, import from the core only gateway/src/plugin-api.ts (ADR 0001, "The plugin API"), while
 * shared test support stays importable. A manual clock to move a booted gateway's time, the issuer of the
 * gateway's own session tokens, and the migrator, to stop a database at an earlier migration.
 */
export { createManualClock, systemClock } from '../../gateway/src/clock.ts';
export { createSessionIssuer, type SessionIssuer } from '../../gateway/src/gate/session-issuer.ts';
export { migrate } from '../../gateway/src/db/migrate.ts';
