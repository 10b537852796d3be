/** Uninstalling: an installation and those below it are removed, their tokens revoked, and each is owed its deleted event. */
import type { Transaction } from 'kysely';
import * as tokens from '../storage/repositories/installation-tokens.js';
import * as installations from '../storage/repositories/installations.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { authorizedInstallation } from './load.js';
import { DELETED_EVENT, owe } from './owed-events.js';

/**
 * Removes an installation (and those below it); their tokens stop working at once, and each is
 * sent its deleted event. Removing a
 * space or site installation takes its place out of the selection: an organization installation
 * that had `all` of them now has the ones that remain `selected`.
 */
export async function uninstall(ctx: ServiceContext, principal: Principal, id: string): Promise<void> {
  const row = await authorizedInstallation(ctx, principal, id, 'admin', 'uninstalling');
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.now();
    const below = await installations.installationsBelow(trx, id);
    await removeInstallations(trx, [id, ...below.map((r) => r.id)], now);
    if (row.parent_id !== null && row.target_type !== 'organization') {
      await installations.setSelectionMode(trx, row.parent_id, row.target_type, 'selected', now);
    }
  });
  ctx.wake();
}

/**
 * Marks installations removed and revokes their tokens, inside `trx`, and owes each its deleted
 * event (`installation_deleted`, `space_installation_deleted`, `site_installation_deleted`).
 */
export async function removeInstallations(trx: Transaction<Database>, ids: string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  const removed = await installations.markRemoved(trx, ids, now);
  for (const row of removed) await owe(trx, row, 'uninstalled', now, DELETED_EVENT);
  await tokens.revokeTokensOf(trx, ids, now);
}
