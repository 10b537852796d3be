/**
 * What the operator console lists across organizations (the admin token only): users with their
 * memberships, and the endpoints that are failing or disabled, with where each belongs.
 */
import { requireAdmin } from '../access/auth.js';
import { type EndpointView, endpointView } from '../delivery/endpoints.js';
import * as views from '../storage/repositories/operator-views.js';
import type { Role } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';

export interface UserEntry {
  id: string;
  name: string;
  createdAt: string;
  memberships: Array<{ organization: string; role: Role }>;
}

export async function listUsers(ctx: ServiceContext, principal: Principal): Promise<UserEntry[]> {
  requireAdmin(principal);
  const [users, memberships] = await Promise.all([views.allUsers(ctx.db), views.allMemberships(ctx.db)]);
  const byUser = new Map<string, UserEntry['memberships']>();
  for (const m of memberships) {
    const list = byUser.get(m.user_id) ?? [];
    list.push({ organization: m.organization_id, role: m.role });
    byUser.set(m.user_id, list);
  }
  return users.map((u) => ({
    id: u.id,
    name: u.name,
    createdAt: new Date(Number(u.created_at)).toISOString(),
    memberships: byUser.get(u.id) ?? [],
  }));
}

export interface TroubledEndpoint extends EndpointView {
  installation: {
    id: string;
    integration: string;
    organization: { id: string; title: string };
    target: { type: 'organization' | 'space' | 'site'; id: string; title: string | null };
  };
}

/** The most endpoints one listing answers. */
export const TROUBLED_LIMIT = 500;

export async function listTroubledEndpoints(
  ctx: ServiceContext,
  principal: Principal,
  state: 'failing' | 'disabled' | undefined,
): Promise<TroubledEndpoint[]> {
  requireAdmin(principal);
  const rows = await views.troubledEndpoints(ctx.db, state ? [state] : ['failing', 'disabled'], TROUBLED_LIMIT);
  return rows.map((row) => {
    const {
      integration_name,
      organization_id,
      organization_title,
      target_type,
      target_id,
      space_title,
      site_title,
      ...endpoint
    } = row;
    return {
      ...endpointView(endpoint),
      installation: {
        id: endpoint.installation_id,
        integration: integration_name,
        organization: { id: organization_id, title: organization_title },
        target: { type: target_type, id: target_id, title: space_title ?? site_title ?? null },
      },
    };
  });
}
