import { fileURLToPath } from 'node:url';

/** `migrations/<scope>/` at the repository root (DECISIONS.md, "Database": schema lives under migrations/). */
export function migrationsDir(scope: string): string {
  return fileURLToPath(new URL(`../../../migrations/${scope}/`, import.meta.url));
}
