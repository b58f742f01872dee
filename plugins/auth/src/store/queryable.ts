import type pg from 'pg';

/** What a store function runs its SQL on: the pool, or the client of a transaction it is part of. */
export type Queryable = Pick<pg.PoolClient, 'query'>;
