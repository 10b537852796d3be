/** Organizations, spaces, sites, users and memberships: synced in by the operator. */

import { hashToken, newToken } from '../access/tokens.js';
import { conflict, notFound } from '../errors/domain-error.js';
import { installIntoNewPlace } from '../installations/selection.js';
import type { Role } from '../storage/schema.js';
import type { ServiceContext } from '../types.js';

export async function createOrganization(
  ctx: ServiceContext,
  input: { id: string; title: string; subdomain?: string | undefined },
) {
  return ctx.db.transaction().execute(async (trx) => {
    const taken = await trx
      .selectFrom('organizations')
      .select('id')
      .where((eb) =>
        eb.or([eb('id', '=', input.id), ...(input.subdomain ? [eb('subdomain', '=', input.subdomain)] : [])]),
      )
      .executeTakeFirst();
    if (taken)
      throw conflict(
        `an organization with the id or subdomain "${taken.id === input.id ? input.id : input.subdomain}" exists`,
      );
    const row = { id: input.id, title: input.title, subdomain: input.subdomain ?? null, created_at: ctx.now() };
    await trx.insertInto('organizations').values(row).execute();
    return { id: row.id, title: row.title, subdomain: row.subdomain };
  });
}

export async function getOrganization(ctx: ServiceContext, id: string) {
  const row = await ctx.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`the organization ${id}`);
  return row;
}

/** An organization by its id or its subdomain (how manifests name their owner). */
export async function findOrganization(ctx: ServiceContext, idOrSubdomain: string) {
  return ctx.db
    .selectFrom('organizations')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSubdomain), eb('subdomain', '=', idOrSubdomain)]))
    .executeTakeFirst();
}

export async function createPlace(
  ctx: ServiceContext,
  kind: 'spaces' | 'sites',
  organizationId: string,
  input: { id: string; title: string },
) {
  await getOrganization(ctx, organizationId);
  const installed = await ctx.db.transaction().execute(async (trx) => {
    const taken = await trx.selectFrom(kind).select('id').where('id', '=', input.id).executeTakeFirst();
    if (taken) throw conflict(`a ${kind === 'spaces' ? 'space' : 'site'} with the id "${input.id}" exists`);
    await trx
      .insertInto(kind)
      .values({ id: input.id, organization_id: organizationId, title: input.title, created_at: ctx.now() })
      .execute();
    // Integrations that select all spaces (sites) of the organization are installed into it too.
    return installIntoNewPlace(ctx, trx, kind === 'spaces' ? 'space' : 'site', organizationId, input.id);
  });
  if (installed > 0) ctx.wake();
  return { id: input.id, organization: organizationId, title: input.title };
}

export async function createUser(ctx: ServiceContext, input: { id: string; name: string }) {
  const token = newToken('user');
  await ctx.db.transaction().execute(async (trx) => {
    const taken = await trx.selectFrom('users').select('id').where('id', '=', input.id).executeTakeFirst();
    if (taken) throw conflict(`a user with the id "${input.id}" exists`);
    const now = ctx.now();
    await trx.insertInto('users').values({ id: input.id, name: input.name, created_at: now }).execute();
    await trx
      .insertInto('user_tokens')
      .values({ token_hash: hashToken(token), user_id: input.id, created_at: now, revoked_at: null })
      .execute();
  });
  return { id: input.id, name: input.name, token };
}

export async function setMembership(ctx: ServiceContext, organizationId: string, userId: string, role: Role) {
  await getOrganization(ctx, organizationId);
  const user = await ctx.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
  if (!user) throw notFound(`the user ${userId}`);
  await ctx.db
    .insertInto('memberships')
    .values({ organization_id: organizationId, user_id: userId, role, created_at: ctx.now() })
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doUpdateSet({ role }))
    .execute();
  return { organization: organizationId, user: userId, role };
}
