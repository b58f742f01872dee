import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';
import { normalizePassword } from '../domain/password.ts';
import { authErrors } from '../errors.ts';

/** README, "Passwords": argon2id, m = 19456 KiB, t = 2, p = 1 (OWASP's first recommendation). */
export const ARGON2_PARAMS = {
  type: argon2.argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export interface HasherLimits {
  /** Hashes computed at once; each holds `memoryCost` KiB while it runs. */
  maxConcurrent: number;
  /** How long a caller may wait for a slot before getting 503 `auth.busy`. */
  maxWaitMs: number;
}

/**
 * Local passwords only: every hash and verification normalises the password first (domain/password.ts), so
 * no path can store one form and check another.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** True when `password` matches `hash`. Always runs one full verification. */
  verify(hash: string, password: string): Promise<boolean>;
  /**
   * One verification against a hash of nothing: the path for an unknown email or a hash-less account, so
   * it costs what a wrong password costs (README, "Sign-in failures").
   */
  verifyNothing(password: string): Promise<false>;
  /** True when `hash` was made with other parameters: rehash on the next successful login. */
  needsRehash(hash: string): boolean;
}

/**
 * argon2id with a bound on concurrent hashes. A flood of logins queues here instead of allocating
 * 19 MiB per request until the process runs out of memory; a caller that waits longer than `maxWaitMs`
 * gets 503 `auth.busy` with Retry-After, which clients and load balancers understand.
 */
export async function createPasswordHasher(limits: HasherLimits): Promise<PasswordHasher> {
  const slots = new Semaphore(limits.maxConcurrent);
  const withSlot = async <T>(work: () => Promise<T>): Promise<T> => {
    const release = await slots.acquire(limits.maxWaitMs);
    if (release === null) {
      throw authErrors.create('auth.busy', { headers: { 'Retry-After': '1' } });
    }
    try {
      return await work();
    } finally {
      release();
    }
  };
  const dummy = await argon2.hash(randomBytes(32), ARGON2_PARAMS);
  return {
    hash: (password) => withSlot(() => argon2.hash(normalizePassword(password), ARGON2_PARAMS)),
    verify: (hash, password) => withSlot(() => argon2.verify(hash, normalizePassword(password))),
    async verifyNothing(password) {
      await withSlot(() => argon2.verify(dummy, normalizePassword(password)));
      return false;
    },
    needsRehash: (hash) => argon2.needsRehash(hash, ARGON2_PARAMS),
  };
}

/** A counting semaphore whose waiters give up after a deadline (FIFO, so no caller starves). */
class Semaphore {
  #free: number;
  readonly #waiting: Array<(release: () => void) => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves with a release function, or null when no slot came free within `timeoutMs`. */
  acquire(timeoutMs: number): Promise<(() => void) | null> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve) => {
      const grant = (release: () => void) => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(() => {
        const index = this.#waiting.indexOf(grant);
        if (index >= 0) this.#waiting.splice(index, 1);
        resolve(null);
      }, timeoutMs);
      this.#waiting.push(grant);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next(this.#releaser());
      else this.#free++;
    };
  }
}
