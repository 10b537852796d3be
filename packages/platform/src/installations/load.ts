/** Reading one installation for a caller: as it is, authorized, or locked for a change. */
import type { Transaction } from 'kysely';
import { requireRole } from '../access/auth.js';
import { forbidden, notFound } from '../errors/domain-error.js';
import * as installations from '../storage/repositories/installations.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';

type Row = Database['installations'];

/** The installation (not uninstalled), or 404. */
export async function loadInstallation(ctx: ServiceContext, id: string): Promise<Row> {
  const row = await installations.installationById.first(ctx.db, id);
  if (!row) throw notFound(`the installation ${id}`);
  return row;
}

/** The installation, for the operator, a member of its organization, or its own token. */
export async function authorizedInstallation(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  role: 'member' | 'admin' = 'member',
  /** What was asked ("pausing it"), named when a member is refused. */
  action?: string,
): Promise<Row> {
  if (principal.kind === 'installation') {
    if (principal.installationId !== id) throw forbidden('an installation token can only reach its own installation');
    if (role === 'admin') throw forbidden('an installation cannot pause, resume or remove itself');
    // Read with its token in this request: it exists and is not uninstalled.
    if (principal.installation !== undefined) return principal.installation;
  }
  // No user has the id null: everyone but a user gets no role.
  const found = await installations.installationWithRole.first(
    ctx.db,
    id,
    principal.kind === 'user' ? principal.userId : nobody,
  );
  if (!found) throw notFound(`the installation ${id}`);
  const { member_role, ...row } = found;
  if (principal.kind === 'user') requireRole(member_role ?? undefined, row.organization_id, role, action);
  return row;
}

/**
 * The installation, for a change only an organization admin may make (the contract's Roles:
 * configure, choose places, reveal or rotate signing secrets, send test events, redeliver,
 * recover): the operator, an admin of its organization, or its own installation token (an
 * integration writes its own configuration and asks for its own deliveries). A member is refused
 * with 403 `forbidden` naming the admin role and `action` ("rotating the signing secret").
 */
export async function managedInstallation(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  action: string,
): Promise<Row> {
  if (principal.kind === 'installation') return authorizedInstallation(ctx, principal, id);
  const found = await installations.installationWithRole.first(
    ctx.db,
    id,
    principal.kind === 'user' ? principal.userId : nobody,
  );
  if (!found) throw notFound(`the installation ${id}`);
  const { member_role, ...row } = found;
  if (principal.kind === 'user') requireRole(member_role ?? undefined, row.organization_id, 'admin', action);
  return row;
}

const nobody = null as unknown as string;

/** The installation as it is inside `trx`, locked on PostgreSQL until it ends; 404 when removed. */
export async function lockedInstallation(ctx: ServiceContext, trx: Transaction<Database>, id: string): Promise<Row> {
  const row = await installations.lockInstallation(trx, ctx.dialect, id);
  if (!row) throw notFound(`the installation ${id}`);
  return row;
}
