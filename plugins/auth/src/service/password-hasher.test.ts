import argon2 from 'argon2';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../gateway/src/plugin-api.ts';
import { createPasswordHasher } from './password-hasher.ts';

describe('password hasher', () => {
  it('hashes with argon2id m=19456 t=2 p=1 and verifies', async () => {
    const hasher = await createPasswordHasher({ maxConcurrent: 2, maxWaitMs: 5_000 });
    const hash = await hasher.hash('a long enough password');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await hasher.verify(hash, 'a long enough password')).toBe(true);
    expect(await hasher.verify(hash, 'a long enough passworD')).toBe(false);
    expect(await hasher.verifyNothing('anything')).toBe(false);
    expect(hasher.needsRehash(hash)).toBe(false);
  });

  it('asks for a rehash when the parameters changed', async () => {
    const hasher = await createPasswordHasher({ maxConcurrent: 1, maxWaitMs: 5_000 });
    const old = await argon2.hash('pw', {
      type: argon2.argon2id,
      memoryCost: 8192,
      timeCost: 1,
      parallelism: 1,
    });
    expect(hasher.needsRehash(old)).toBe(true);
  });

  it('answers 503 auth.busy with Retry-After instead of queueing past the wait limit', async () => {
    const hasher = await createPasswordHasher({ maxConcurrent: 1, maxWaitMs: 0 });
    const running = hasher.hash('one');
    const refused = hasher.hash('two').catch((err: unknown) => err);
    const error = await refused;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'auth.busy', status: 503, headers: { 'Retry-After': '1' } });
    await running;
    // The slot is free again.
    await expect(hasher.hash('three')).resolves.toMatch(/^\$argon2id\$/);
  });
});
