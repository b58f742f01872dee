import { describe, expect, it } from 'vitest';
import type { SessionIdentity } from '../../../../gateway/src/plugin-api.ts';
import type { LiveAccount } from '../store/user-store.ts';
import type { AccountCache } from './account-cache.ts';
import { createSessionResolver } from './session-resolver.ts';

const USER = '7d0f3c2e-5b1a-4c8e-9f00-2a6b8c4d1e3f';

/** An account cache holding `cached`, and reading `stored` on a miss. */
function accounts(cached: Map<string, LiveAccount | null>, stored: LiveAccount | null): AccountCache {
  return {
    peek: (id) => cached.get(id),
    load: () => Promise.resolve(stored),
    invalidate: () => undefined,
    setListening: () => undefined,
  };
}

const own = (claims: Partial<SessionIdentity> = {}): SessionIdentity => ({
  sub: USER,
  email: 'ada@example.com',
  roles: ['*'],
  sid: 'sid-1',
  ...claims,
});

describe('session resolver', () => {
  it("answers the gateway's own session from the cached account, synchronously, with its current roles", () => {
    const resolve = createSessionResolver(
      accounts(new Map([[USER, { email: 'ada@example.com', roles: ['agent'] }]]), null),
    );
    expect(resolve(own())).toEqual({ sub: USER, email: 'ada@example.com', roles: ['agent'], sid: 'sid-1' });
  });

  it('reads an account it has not cached, and refuses a disabled or missing one', async () => {
    const live = createSessionResolver(accounts(new Map(), { email: 'ada@example.com', roles: [] }));
    const pending = live(own());
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toMatchObject({ roles: [] });
    expect(createSessionResolver(accounts(new Map([[USER, null]]), null))(own())).toBeNull();
    expect(await createSessionResolver(accounts(new Map(), null))(own())).toBeNull();
  });

  it('refuses a session whose sub is not an account id, without a lookup', () => {
    const resolve = createSessionResolver(accounts(new Map(), null));
    expect(resolve(own({ sub: 'dashboard-user-42' }))).toBeNull();
  });

  it("passes an external dashboard's token (no sid) as it claims", () => {
    const resolve = createSessionResolver(accounts(new Map(), null));
    const external = own({ sub: 'dashboard-user-42', roles: ['*'], sid: null });
    expect(resolve(external)).toBe(external);
  });
});
