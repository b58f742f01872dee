import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  url: string;
  /** A small pool for assertions straight against the database. */
  pool: pg.Pool;
  drop(): Promise<void>;
}

/** A database of its own for one test file, cloned from the migrated template (or empty). */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const template = options.empty ? 'template0' : inject('templateDatabase');
  await withAdmin(adminUrl, async (admin) => {
    // Concurrent clones of one template can collide briefly; a retry settles it.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        return;
      } catch (err) {
        if (attempt >= 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50 + attempt * 20));
      }
    }
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  // pool.end() resolves once its clients are removed, while their connections may still be closing; the
  // DROP ... WITH (FORCE) that follows terminates those (57P01). Expected there; anything else is not.
  pool.on('error', (err: Error & { code?: string }) => {
    if (err.code !== '57P01') throw err;
  });
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      await withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
