/** Turns a bearer token into a principal, and answers the questions routes ask about it. */
import { forbidden, unauthorized } from '../errors.js';
import type { Principal, ServiceContext } from './context.js';
import { hashToken, sameSecret, tokenKind } from './tokens.js';

export async function authenticate(
  ctx: ServiceContext,
  adminToken: string,
  header: string | undefined,
): Promise<Principal> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (token === undefined) throw unauthorized();
  if (sameSecret(token, adminToken)) return { kind: 'admin' };
  const kind = tokenKind(token);
  if (kind === 'user') {
    const row = await ctx.db
      .selectFrom('user_tokens')
      .select('user_id')
      .where('token_hash', '=', hashToken(token))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (row) return { kind: 'user', userId: row.user_id };
  } else if (kind === 'installation') {
    const row = await ctx.db
      .selectFrom('installation_tokens as t')
      .innerJoin('installations as i', 'i.id', 't.installation_id')
      .select(['t.installation_id', 't.scopes'])
      .where('t.token_hash', '=', hashToken(token))
      .where('t.revoked_at', 'is', null)
      .where('i.uninstalled_at', 'is', null)
      .executeTakeFirst();
    if (row) return { kind: 'installation', installationId: row.installation_id, scopes: JSON.parse(row.scopes) };
  }
  throw unauthorized('the token is not valid (unknown, revoked, or its installation was removed)');
}

export function requireAdmin(principal: Principal): void {
  if (principal.kind !== 'admin') throw forbidden('this route needs the operator admin token');
}

export async function roleIn(
  ctx: ServiceContext,
  principal: Principal,
  organizationId: string,
): Promise<'admin' | 'member' | undefined> {
  if (principal.kind !== 'user') return undefined;
  const row = await ctx.db
    .selectFrom('memberships')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', principal.userId)
    .executeTakeFirst();
  return row?.role;
}

/** The operator, or a member (any role, or `admin` when asked) of the organization. */
export async function requireMember(
  ctx: ServiceContext,
  principal: Principal,
  organizationId: string,
  role: 'member' | 'admin' = 'member',
): Promise<void> {
  if (principal.kind === 'admin') return;
  const has = await roleIn(ctx, principal, organizationId);
  if (has === undefined || (role === 'admin' && has !== 'admin')) {
    throw forbidden(
      role === 'admin'
        ? `only admins of the organization ${organizationId} (or the operator) may do this`
        : `you are not a member of the organization ${organizationId}`,
    );
  }
}
