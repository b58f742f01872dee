import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The embedded denylist of common passwords (data/common-passwords.txt, its origin in data/NOTICE.md),
 * lower-cased into a set for the password policy (domain/password-policy.ts). Read once at boot and by
 * `gatehouse admin create`.
 */
export function loadDenylist(
  file = fileURLToPath(new URL('../../data/common-passwords.txt', import.meta.url)),
): ReadonlySet<string> {
  const set = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const entry = line.trim().toLowerCase();
    if (entry) set.add(entry);
  }
  return set;
}
