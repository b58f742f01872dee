import { kycErrors } from '../../errors.ts';
import { verificationStore } from '../../store/verification-store.ts';
import type { VerificationDeps } from './transition.ts';

/**
 * A tenant's verification, serialized: what the status route sends, from the cache when it is current.
 * Another tenant's verification is "not found", never "forbidden", so ids reveal nothing about other
 * tenants.
 */
export async function readVerificationJson(
  deps: Pick<VerificationDeps, 'db' | 'cache'>,
  tenantId: string,
  id: string,
): Promise<string> {
  const json = await deps.cache.read(tenantId, id, async () => {
    const view = await verificationStore.view(deps.db.pool, tenantId, id);
    return view ? JSON.stringify(view) : null;
  });
  if (json === null) throw kycErrors.create('kyc.verification.not_found');
  return json;
}
