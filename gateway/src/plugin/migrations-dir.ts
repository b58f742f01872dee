import { fileURLToPath } from 'node:url';

/** `migrations/<scope>/` at the repository root, where all schema lives (ADR 0002). */
export function migrationsDir(scope: string): string {
  return fileURLToPath(new URL(`../../../migrations/${scope}/`, import.meta.url));
}
