import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { AuthDeployment } from '../deployment/validate.ts';
import { factorStore } from '../store/factor-store.ts';

/**
 * The deployment's recommendation on administrators (README, "Break-glass"): at least two wildcard admins, and —
 * where a password is kept only for break-glass admins (oidc mode, LDAP_MODE=only) — at least one who can sign in
 * while the identity provider is down, with a factor already enrolled. Warnings, never a refusal to boot: the
 * first admin is made after the first boot.
 */
export async function adminReadinessWarnings(db: Queryable, deployment: AuthDeployment): Promise<string[]> {
  const { admins, readyBreakGlass } = await factorStore.adminReadiness(db);
  const warnings: string[] = [];
  if (admins < 2)
    warnings.push(
      `${admins} active wildcard admin(s): keep at least 2, so one can reset the other's second factor`,
    );
  if (deployment.password === 'break-glass-admins' && readyBreakGlass === 0)
    warnings.push(
      'no break-glass admin with an enrolled second factor (TOTP with a password, or a passkey): nobody can sign in while the identity provider is down',
    );
  return warnings;
}
