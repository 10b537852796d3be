/**
 * Reading the directory as the dashboard shows it: the organizations a person belongs to (the
 * operator: all of them), an organization with its spaces, sites, members and installations, and
 * a space or site with the installations in it.
 */

import { requireRole, roleIn } from '../access/auth.js';
import { forbidden, notFound } from '../errors/domain-error.js';
import { type InstallationPage, installationPage } from '../installations/page.js';
import type { Role } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { getOrganization } from './directory.js';

export interface OrganizationEntry {
  id: string;
  title: string;
  /** The principal's role in it (`admin` for the operator). */
  role: Role;
}

export async function listOrganizations(ctx: ServiceContext, principal: Principal): Promise<OrganizationEntry[]> {
  if (principal.kind === 'installation') throw forbidden('an installation token belongs to no organization');
  if (principal.kind === 'admin') {
    const rows = await ctx.db.selectFrom('organizations').select(['id', 'title']).orderBy('title').execute();
    return rows.map((r) => ({ ...r, role: 'admin' }));
  }
  return ctx.db
    .selectFrom('memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['o.id', 'o.title', 'm.role'])
    .where('m.user_id', '=', principal.userId)
    .orderBy('o.title')
    .execute();
}

/** The principal's role in the organization; 403 for those outside it. */
async function roleFor(ctx: ServiceContext, principal: Principal, organizationId: string): Promise<Role> {
  if (principal.kind === 'admin') return 'admin';
  if (principal.kind === 'installation') throw forbidden('an installation token cannot read the directory');
  const role = await roleIn(ctx, principal, organizationId);
  requireRole(role, organizationId);
  return role as Role;
}

export async function organizationPage(ctx: ServiceContext, principal: Principal, organizationId: string) {
  const organization = await getOrganization(ctx, organizationId);
  const role = await roleFor(ctx, principal, organizationId);
  const [spaces, sites, members, installations] = await Promise.all([
    ctx.db
      .selectFrom('spaces')
      .select(['id', 'title'])
      .where('organization_id', '=', organizationId)
      .orderBy('title')
      .execute(),
    ctx.db
      .selectFrom('sites')
      .select(['id', 'title'])
      .where('organization_id', '=', organizationId)
      .orderBy('title')
      .execute(),
    ctx.db
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.name', 'm.role'])
      .where('m.organization_id', '=', organizationId)
      .orderBy('u.name')
      .execute(),
    ctx.db
      .selectFrom('installations')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('target_type', '=', 'organization')
      .where('uninstalled_at', 'is', null)
      .orderBy('created_at')
      .execute(),
  ]);
  return {
    id: organization.id,
    title: organization.title,
    role,
    spaces,
    sites,
    members,
    installations: await Promise.all(installations.map((row) => installationPage(ctx, row))),
  };
}

export interface PlacePage {
  id: string;
  title: string;
  organization: string;
  installations: InstallationPage[];
}

/** A space or site with the installations in it. */
export async function placePage(
  ctx: ServiceContext,
  principal: Principal,
  type: 'space' | 'site',
  id: string,
): Promise<PlacePage> {
  const place = await ctx.db
    .selectFrom(type === 'space' ? 'spaces' : 'sites')
    .select(['id', 'title', 'organization_id'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!place) throw notFound(`the ${type} ${id}`);
  await roleFor(ctx, principal, place.organization_id);
  const rows = await ctx.db
    .selectFrom('installations')
    .selectAll()
    .where('target_type', '=', type)
    .where('target_id', '=', id)
    .where('uninstalled_at', 'is', null)
    .orderBy('created_at')
    .execute();
  return {
    id: place.id,
    title: place.title,
    organization: place.organization_id,
    installations: await Promise.all(rows.map((row) => installationPage(ctx, row))),
  };
}
