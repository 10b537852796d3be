/** Users and their memberships: synced in by the operator. */
import { hashToken, newToken } from '../access/tokens.js';
import { conflict, notFound } from '../errors/domain-error.js';
import * as users from '../storage/repositories/users.js';
import type { Role } from '../storage/schema.js';
import type { ServiceContext } from '../types.js';
import { getOrganization } from './organizations.js';

export async function createUser(ctx: ServiceContext, input: { id: string; name: string }) {
  const token = newToken('user');
  await ctx.db.transaction().execute(async (trx) => {
    const taken = await users.userTaken(trx, input.id);
    if (taken) throw conflict(`a user with the id "${input.id}" exists`);
    const now = ctx.now();
    await users.insertUser(
      trx,
      { id: input.id, name: input.name, created_at: now },
      { token_hash: hashToken(token), user_id: input.id, created_at: now, revoked_at: null },
    );
  });
  return { id: input.id, name: input.name, token };
}

export async function setMembership(ctx: ServiceContext, organizationId: string, userId: string, role: Role) {
  await getOrganization(ctx, organizationId);
  const user = await users.userById(ctx.db, userId);
  if (!user) throw notFound(`the user ${userId}`);
  await users.upsertMembership(ctx.db, {
    organization_id: organizationId,
    user_id: userId,
    role,
    created_at: ctx.now(),
  });
  return { organization: organizationId, user: userId, role };
}
