/** Installation tokens (carrying the organization's grant): minted on install, rotated on request, read for the envelopes. */
import type { Transaction } from 'kysely';
import { hashToken, newToken } from '../access/tokens.js';
import { notFound } from '../errors/domain-error.js';
import * as tokens from '../storage/repositories/installation-tokens.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { grantedTo } from './granted-scopes.js';
import { authorizedInstallation } from './load.js';

export async function mintToken(
  ctx: ServiceContext,
  trx: Transaction<Database>,
  installationId: string,
  scopes: readonly string[],
) {
  const token = newToken('installation');
  await tokens.insertToken(trx, {
    token_hash: hashToken(token),
    installation_id: installationId,
    token: ctx.box.seal(token),
    scopes: JSON.stringify(scopes),
    created_at: ctx.now(),
    revoked_at: null,
  });
  return token;
}

/** Revokes the installation's token and mints a new one (the integration gets it in its next envelope). */
export async function rotateToken(ctx: ServiceContext, principal: Principal, id: string): Promise<void> {
  const row = await authorizedInstallation(ctx, principal, id, 'admin', 'rotating the installation token');
  await ctx.db.transaction().execute(async (trx) => {
    await tokens.revokeTokens(trx, id, ctx.now());
    // The new token carries what the organization granted, as the one it replaces did.
    await mintToken(ctx, trx, id, await grantedTo(ctx, row, trx));
  });
}

/** The installation's current API token, in clear, for the envelopes the platform sends it. */
export async function currentToken(ctx: ServiceContext, id: string): Promise<string> {
  const row = await tokens.currentSealedToken(ctx.db, id);
  if (!row) throw notFound(`a token of the installation ${id}`);
  return ctx.box.open(row.token);
}
