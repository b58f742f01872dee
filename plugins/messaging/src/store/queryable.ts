import type { Database } from '../../../../gateway/src/plugin-api.ts';

/**
 * What a store sends its statements through: the database (`ctx.db`), its pool, or the client of a
 * transaction the caller holds, so one store function serves a lone write and a write inside a batch.
 */
export type Queryable = Pick<Database, 'query'>;
