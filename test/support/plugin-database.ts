import pino from 'pino';
import { createDatabase, type Database } from '../../gateway/src/db/database.ts';

/**
 * The core's Database over a test database, for plugin suites that call a plugin's services without booting a
 * gateway (a plugin itself may only import the core's API). Close it with `db.pool.end()`.
 */
export function pluginDatabase(url: string): Database {
  return createDatabase({ connectionString: url, max: 2, logger: pino({ level: 'silent' }) });
}
