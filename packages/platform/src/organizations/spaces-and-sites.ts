/** Spaces and sites of an organization: synced in by the operator. */
import { conflict } from '../errors/domain-error.js';
import { installIntoNewPlace } from '../installations/selection.js';
import * as organizations from '../storage/repositories/organizations.js';
import type { ServiceContext } from '../types.js';
import { getOrganization } from './organizations.js';

export async function createPlace(
  ctx: ServiceContext,
  kind: 'spaces' | 'sites',
  organizationId: string,
  input: { id: string; title: string },
) {
  await getOrganization(ctx, organizationId);
  const installed = await ctx.db.transaction().execute(async (trx) => {
    const taken = await organizations.placeTaken(trx, kind, input.id);
    if (taken) throw conflict(`a ${kind === 'spaces' ? 'space' : 'site'} with the id "${input.id}" exists`);
    await organizations.insertPlace(trx, kind, {
      id: input.id,
      organization_id: organizationId,
      title: input.title,
      created_at: ctx.now(),
    });
    // Integrations that select all spaces (sites) of the organization are installed into it too.
    return installIntoNewPlace(ctx, trx, kind === 'spaces' ? 'space' : 'site', organizationId, input.id);
  });
  if (installed > 0) ctx.wake();
  return { id: input.id, organization: organizationId, title: input.title };
}
