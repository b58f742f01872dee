/**
 * The checksums databases hold from before the checksum left comments out (ADR 0002, "Databases migrated
 * before"). Until then the runner recorded the SHA-256 of each whole file, comments included. The comments
 * of most files were rewritten when the rule changed, so the whole-file checksum a database holds for them
 * can no longer be computed from the file on disk: it is listed here, per file, as the files stood on the
 * last commit with the former rule.
 *
 * Each entry also holds the checksum that same file has under the current rule. The runner accepts a
 * recorded whole-file checksum from this table only while the file on disk still has that current checksum,
 * that is while its statements are those the database applied; a real change to the SQL is refused as for
 * any other database. This table never grows: files applied after the change are recorded under the
 * current rule.
 */
export interface LegacyChecksum {
  /** SHA-256 of the whole file (line endings normalised) as the former rule recorded it. */
  wholeFile: string;
  /** The current rule's checksum of that same file: what the file on disk must still have. */
  statements: string;
}

/** Keyed `<scope>/<file name>`, as the runner names migrations. */
export const LEGACY_CHECKSUMS: ReadonlyMap<string, LegacyChecksum> = new Map([
  legacy(
    'auth/0001_accounts.sql',
    '2a076cf85d7284d5832d27f895ffe218a8a9ae56fdcd8c6925667bc37648c44b',
    'ad7d220c45837c58738358483181fe6182e79faaec8eb4abac2872ddb8a54bea',
  ),
  legacy(
    'auth/0002_attempts.sql',
    '1190055ec5bf7fba1dbb54ef27e09803cf47e0f88197c1f7079bf225a63b1440',
    'd3906d4a4d677ef8757fa162e59ebca0a79e0ec006bd13d8e6faa4209e49b1fb',
  ),
  legacy(
    'auth/0003_account_change_notify.sql',
    '7f8cc3abdf5a9bb61ddae303817358d24aa5a831e89777d71c5589a0c396e1ce',
    '88a8a021bc2cbc853ad3e1bbbb9553f611cd8ff7499d12d255e2e59eb4f61c8a',
  ),
  legacy(
    'auth/0004_canonical_emails.sql',
    '91964d5aeed0cb60b33c672f18c5efc3607243b2ba0da23e57fa0c7d9f7eb4b0',
    '1e33b1518718ba8c4bbedaa45eede41e06b9f0dd084d1e0b3dbb6d9a3f87d209',
  ),
  legacy(
    'core/0001_audit_log.sql',
    'ff058591d927409f0bca82d39055d2b5424cc6fdde83fb62e00811507d3fbf14',
    '8a4e9302f0790c53c6cefd27a35d69e36cb1eae54d0fd3c6c49ea77791e27de2',
  ),
  legacy(
    'kyc/0001_tenants_and_keys.sql',
    'ce04db8d8832e929863899f7df9a427c0b983d225fcf287d9b51ca89a595f3cd',
    '12b63607e15565bd6f8860264d24d0ea79eefd43a45d8c37a2150befe21027fe',
  ),
  legacy(
    'kyc/0002_verifications.sql',
    '43610f1846f5f167727664f424fca40c00c36870ef1f1e74b53d5096fabab5ed',
    '56574409e8561962eb413d1d2d3b70b7a850495d201f6643d7bccb7b29b1c02d',
  ),
  legacy(
    'kyc/0003_webhooks.sql',
    'ece2a6a46ebb3a4787a75820e37d07c31ccea30418ffcc611c7cc88b71760d09',
    '7e838bc0e051cb8515115dae52b7a3080e518b3813a9e2522d595772e212b8f5',
  ),
  legacy(
    'messaging/0001_conversations.sql',
    'f7d04e71f7003c7976ccb6f8b42c5c237571de09893c238bebb9e1d5956d0f93',
    'ae1ab67c6c5715830a0929513f177e1f50a35d5173b2736fda845ed7a5205a67',
  ),
]);

function legacy(id: string, wholeFile: string, statements: string): [string, LegacyChecksum] {
  return [id, { wholeFile, statements }];
}
