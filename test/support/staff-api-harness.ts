/**
 * What a staff-API test file boots in its `beforeAll`: a database of its own (cloned from the migrated
 * template), the messaging provider's stand-in, and the real gateway in this process on both, serving the staff
 * API in enforce mode (`staffApiEnv`). `stop` (for `afterAll`) closes the gateway and the stand-in and drops the
 * database; a failed start undoes what it had started before rethrowing.
 */
import type { Clock } from '../../gateway/src/clock.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import { startProviderStub, type ProviderStub } from './messaging.ts';
import { ADMIN, staffApiEnv, staffClient, type StaffClient, type StaffTiming } from './staff-api.ts';

export interface StaffApiHarness {
  db: TestDatabase;
  provider: ProviderStub;
  gateway: TestGateway;
  /** The admin, signing with the harness's `timing`. */
  admin: StaffClient;
  /** A function, not a method: the tests keep it apart from the harness for their `afterAll`. */
  stop: () => Promise<void>;
}

export interface StaffApiHarnessOptions {
  /** Added to `staffApiEnv` (and overriding it). */
  env?: Record<string, string>;
  /** The gateway's clock. */
  clock?: Clock;
  /** How the admin client signs (for a gateway on a moved clock). */
  timing?: StaffTiming;
}

export async function startStaffApiHarness(options: StaffApiHarnessOptions = {}): Promise<StaffApiHarness> {
  const closers: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    const db = await createTestDatabase();
    closers.push(() => db.drop());
    const provider = await startProviderStub();
    closers.push(() => provider.close());
    const gateway = await startTestGateway({
      databaseUrl: db.url,
      env: staffApiEnv(provider, options.env),
      clock: options.clock,
    });
    closers.push(() => gateway.close());
    return { db, provider, gateway, admin: staffClient(gateway, ADMIN, options.timing), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
