import { z } from 'zod';
import { type PluginCommand, printResult, usageError } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { generateScimToken } from '../domain/scim/token.ts';
import { scimTokenStore, type ScimTokenRow } from '../store/scim-token-store.ts';

/** A token as the commands print it: never its value or hash. */
function view(row: ScimTokenRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.displayPrefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/**
 * `gatehouse scim token create --name <label>` (README, "SCIM provisioning"): a bearer token for an identity
 * provider's SCIM client. The token is printed once, in the JSON result; only its SHA-256 is stored.
 */
export const scimTokenCreateCommand: PluginCommand<AuthEnv> = {
  name: ['scim', 'token', 'create'],
  summary: 'Create a SCIM bearer token for an identity provider; the token is printed once and never stored',
  usage: '--name <label>',
  options: { name: { type: 'string' } },
  async run(ctx, values) {
    const name = z.string().trim().min(1).max(100).safeParse(values.name);
    if (!name.success) {
      return usageError(ctx.io, 'scim token create', '--name <label> is required (1 to 100 characters)');
    }
    const made = generateScimToken();
    const row = await scimTokenStore.insert(ctx.db, { name: name.data, ...made }, ctx.clock.now());
    await ctx.audit.write({
      kind: 'auth.scim.token.created',
      actor: 'cli',
      payload: { tokenId: row.id, name: row.name },
    });
    printResult(ctx.io, { ...view(row), token: made.token });
    ctx.io.stderr.write('Store this token now: it is shown once and cannot be recovered.\n');
    return 0;
  },
};

export const scimTokenListCommand: PluginCommand<AuthEnv> = {
  name: ['scim', 'token', 'list'],
  summary: 'List SCIM bearer tokens as JSON (never their values)',
  usage: '',
  options: {},
  async run(ctx) {
    printResult(ctx.io, (await scimTokenStore.list(ctx.db)).map(view));
    return 0;
  },
};

/** Revocation holds from the next request on every replica: tokens are not cached. */
export const scimTokenRevokeCommand: PluginCommand<AuthEnv> = {
  name: ['scim', 'token', 'revoke'],
  summary: 'Revoke a SCIM bearer token by its id; refused from the next request on',
  usage: '--id <token id>',
  options: { id: { type: 'string' } },
  async run(ctx, values) {
    const id = z.uuid().safeParse(values.id);
    if (!id.success)
      return usageError(ctx.io, 'scim token revoke', '--id <token id> is required and must be a token id');
    const row = await scimTokenStore.revoke(ctx.db, id.data, ctx.clock.now());
    if (!row) {
      ctx.io.stderr.write(`gatehouse scim token revoke: no token with the id ${id.data}\n`);
      return 1;
    }
    await ctx.audit.write({
      kind: 'auth.scim.token.revoked',
      actor: 'cli',
      payload: { tokenId: row.id, name: row.name },
    });
    printResult(ctx.io, view(row));
    return 0;
  },
};

export const scimTokenCommands = [scimTokenCreateCommand, scimTokenListCommand, scimTokenRevokeCommand];
