/** Organizations: synced in by the operator. */
import { conflict, notFound } from '../errors/domain-error.js';
import * as organizations from '../storage/repositories/organizations.js';
import type { ServiceContext } from '../types.js';

export async function createOrganization(
  ctx: ServiceContext,
  input: { id: string; title: string; subdomain?: string | undefined },
) {
  return ctx.db.transaction().execute(async (trx) => {
    const taken = await organizations.organizationTaken(trx, input.id, input.subdomain);
    if (taken)
      throw conflict(
        `an organization with the id or subdomain "${taken.id === input.id ? input.id : input.subdomain}" exists`,
      );
    const row = { id: input.id, title: input.title, subdomain: input.subdomain ?? null, created_at: ctx.now() };
    await organizations.insertOrganization(trx, row);
    return { id: row.id, title: row.title, subdomain: row.subdomain };
  });
}

export async function getOrganization(ctx: ServiceContext, id: string) {
  const row = await organizations.organizationById(ctx.db, id);
  if (!row) throw notFound(`the organization ${id}`);
  return row;
}

/** An organization by its id or its subdomain (how manifests name their owner). */
export async function findOrganization(ctx: ServiceContext, idOrSubdomain: string) {
  return organizations.organizationByIdOrSubdomain(ctx.db, idOrSubdomain);
}
