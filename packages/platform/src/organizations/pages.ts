/**
 * Reading the directory as the dashboard shows it: the organizations a person belongs to (the
 * operator: all of them), an organization with its spaces, sites, members and installations, and
 * a space or site with the installations in it.
 */

import { requireRole, roleIn } from '../access/auth.js';
import { forbidden, notFound } from '../errors/domain-error.js';
import { type InstallationPage, installationPage } from '../installations/page.js';
import { readerOf } from '../installations/secret-configuration.js';
import * as installations from '../storage/repositories/installations.js';
import * as organizations from '../storage/repositories/organizations.js';
import { membersOf } from '../storage/repositories/users.js';
import type { Role } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { getOrganization } from './organizations.js';

export interface OrganizationEntry {
  id: string;
  title: string;
  /** The principal's role in it (`admin` for the operator). */
  role: Role;
}

export async function listOrganizations(ctx: ServiceContext, principal: Principal): Promise<OrganizationEntry[]> {
  if (principal.kind === 'installation') throw forbidden('an installation token belongs to no organization');
  if (principal.kind === 'admin') {
    const rows = await organizations.allOrganizations(ctx.db);
    return rows.map((r) => ({ ...r, role: 'admin' }));
  }
  return organizations.organizationsOf(ctx.db, principal.userId);
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
  const [spaces, sites, members, rows] = await Promise.all([
    organizations.placesOf(ctx.db, 'spaces', organizationId),
    organizations.placesOf(ctx.db, 'sites', organizationId),
    membersOf(ctx.db, organizationId),
    installations.organizationInstallationsOf(ctx.db, organizationId),
  ]);
  return {
    id: organization.id,
    title: organization.title,
    role,
    spaces,
    sites,
    members,
    installations: await Promise.all(rows.map((row) => installationPage(ctx, row, readerOf(role)))),
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
  const place = await organizations.placeWithTitle(ctx.db, type, id);
  if (!place) throw notFound(`the ${type} ${id}`);
  const role = await roleFor(ctx, principal, place.organization_id);
  const rows = await installations.installationsIn(ctx.db, type, id);
  return {
    id: place.id,
    title: place.title,
    organization: place.organization_id,
    installations: await Promise.all(rows.map((row) => installationPage(ctx, row, readerOf(role)))),
  };
}
