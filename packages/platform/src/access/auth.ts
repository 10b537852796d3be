/** Turns a bearer token into a principal, and answers the questions routes ask about it. */
import { forbidden, unauthenticated } from '../errors/domain-error.js';
import { installationByToken } from '../storage/repositories/installation-tokens.js';
import { membership, userByToken } from '../storage/repositories/users.js';
import type { Principal, ServiceContext } from '../types.js';
import { hashToken, sameHash, tokenKind } from './tokens.js';

/**
 * What a bearer token says before the database is asked: the operator, or the hash of a user or
 * installation token to look up (`principalOf` looks it up; a route may instead look it up in the
 * same query as what it reads).
 */
export type Credentials = { kind: 'admin' } | { kind: 'user' | 'installation'; tokenHash: string };

/** The admin token's SHA-256, computed once (it does not change while the server runs). */
let admin: { token: string; hash: string } | undefined;

export function credentialsOf(adminToken: string, header: string | undefined): Credentials {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (token === undefined) throw unauthenticated();
  // One hash per request: compared with the admin token's in constant time, and the lookup key.
  const tokenHash = hashToken(token);
  if (admin?.token !== adminToken) admin = { token: adminToken, hash: hashToken(adminToken) };
  if (sameHash(tokenHash, admin.hash)) return { kind: 'admin' };
  const kind = tokenKind(token);
  if (kind !== 'user' && kind !== 'installation') throw invalidToken();
  return { kind, tokenHash };
}

/** Who the credentials belong to; 401 for a token that is unknown, revoked, or whose installation was removed. */
export async function principalOf(ctx: ServiceContext, credentials: Credentials): Promise<Principal> {
  if (credentials.kind === 'admin') return { kind: 'admin' };
  if (credentials.kind === 'user') {
    const row = await userByToken.first(ctx.db, credentials.tokenHash);
    if (row) return { kind: 'user', userId: row.user_id };
  } else {
    const row = await installationByToken.first(ctx.db, credentials.tokenHash);
    if (row) {
      const { installation_id, scopes, ...installation } = row;
      return { kind: 'installation', installationId: installation_id, scopes: JSON.parse(scopes), installation };
    }
  }
  throw invalidToken();
}

export function invalidToken() {
  return unauthenticated('the token is not valid (unknown, revoked, or its installation was removed)');
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
  return (await membership.first(ctx.db, organizationId, principal.userId))?.role;
}

/** The operator, or a member (any role, or `admin` when asked, for `action`) of the organization. */
export async function requireMember(
  ctx: ServiceContext,
  principal: Principal,
  organizationId: string,
  role: 'member' | 'admin' = 'member',
  action?: string,
): Promise<void> {
  if (principal.kind === 'admin') return;
  requireRole(await roleIn(ctx, principal, organizationId), organizationId, role, action);
}

/**
 * Refuses a user whose role in the organization (`has`, undefined when not a member) is not enough.
 * The refusal names the role needed, and `action` (what was asked, "rotating the signing secret")
 * when given, so a member knows who can do it for them.
 */
export function requireRole(
  has: 'admin' | 'member' | undefined,
  organizationId: string,
  role: 'member' | 'admin' = 'member',
  action?: string,
): void {
  if (has === undefined) throw forbidden(`you are not a member of the organization ${organizationId}`);
  if (role === 'admin' && has !== 'admin') {
    throw forbidden(
      action === undefined
        ? `only admins of the organization ${organizationId} (or the operator) may do this`
        : `${action} needs the admin role in the organization ${organizationId}, and you are a member: ask one of its admins (or the operator)`,
    );
  }
}
