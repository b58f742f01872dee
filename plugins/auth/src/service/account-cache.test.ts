import { describe, expect, it } from 'vitest';
import type { Database } from '../../../../gateway/src/plugin-api.ts';
import { createAccountCache } from './account-cache.ts';

/** A database whose reads of an account answer when the test says so, with what the account is then. */
function controlledDatabase() {
  const pending: Array<() => void> = [];
  const state = { roles: ['*'], reads: 0 };
  const pool = {
    query: () => {
      state.reads++;
      // The row is read (its snapshot taken) now; the answer arrives when released.
      const row = { email: 'ada@example.com', roles: [...state.roles] };
      return new Promise((resolve) => pending.push(() => resolve({ rows: [row] })));
    },
  };
  return {
    db: { pool } as unknown as Database,
    state,
    release: () => pending.splice(0).forEach((answer) => answer()),
  };
}

describe('account cache', () => {
  it('answers from memory once read, and reads again after an invalidation', async () => {
    const { db, state, release } = controlledDatabase();
    const accounts = createAccountCache({ db, maxEntries: 10 });
    expect(accounts.peek('u')).toBeUndefined();
    const read = accounts.load('u');
    release();
    expect(await read).toEqual({ email: 'ada@example.com', roles: ['*'] });
    expect(accounts.peek('u')).toEqual({ email: 'ada@example.com', roles: ['*'] });
    state.roles = [];
    accounts.invalidate('u');
    expect(accounts.peek('u')).toBeUndefined();
  });

  it('does not cache a read that a change overtook (the read saw the state before it)', async () => {
    const { db, state, release } = controlledDatabase();
    const accounts = createAccountCache({ db, maxEntries: 10 });
    const stale = accounts.load('u');
    state.roles = [];
    accounts.invalidate('u');
    release();
    expect(await stale).toMatchObject({ roles: ['*'] });
    expect(accounts.peek('u')).toBeUndefined();
    const fresh = accounts.load('u');
    release();
    expect(await fresh).toMatchObject({ roles: [] });
    expect(accounts.peek('u')).toMatchObject({ roles: [] });
  });

  it('shares one read between concurrent requests of one account', async () => {
    const { db, state, release } = controlledDatabase();
    const accounts = createAccountCache({ db, maxEntries: 10 });
    const reads = [accounts.load('u'), accounts.load('u'), accounts.load('u')];
    release();
    await Promise.all(reads);
    expect(state.reads).toBe(1);
  });

  it('caches nothing while not listening for changes', async () => {
    const { db, release } = controlledDatabase();
    const accounts = createAccountCache({ db, maxEntries: 10 });
    accounts.setListening(false);
    const read = accounts.load('u');
    release();
    await read;
    expect(accounts.peek('u')).toBeUndefined();
    accounts.setListening(true);
    const again = accounts.load('u');
    release();
    await again;
    expect(accounts.peek('u')).toBeDefined();
  });
});
