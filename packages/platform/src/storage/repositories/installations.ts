/**
 * The statements of installations: their rows, their status changes, and the places below an
 * organization installation. `updated_at` changes through `laterThan` on every update, since the
 * selection cache keys on it (installations/views.ts).
 */
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database, InstallationStatus, Selection, TargetType } from '../schema.js';

type Row = Database['installations'];
type Dialect = 'sqlite' | 'postgres';
type Kind = 'space' | 'site';

/** The installation (not uninstalled). */
export const installationById = prepared((db, id: string) =>
  db.selectFrom('installations').selectAll().where('id', '=', id).where('uninstalled_at', 'is', null),
);

/**
 * The installation with the caller's role in its organization, in one query (a user's; null for
 * everyone else, and for users who are not members).
 */
export const installationWithRole = prepared((db, id: string, userId: string) =>
  db
    .selectFrom('installations as i')
    .leftJoin('memberships as m', (join) =>
      join.onRef('m.organization_id', '=', 'i.organization_id').on('m.user_id', '=', userId),
    )
    .selectAll('i')
    .select('m.role as member_role')
    .where('i.id', '=', id)
    .where('i.uninstalled_at', 'is', null),
);

/** The columns an installation's view is made of. */
const VIEW_COLUMNS = [
  'i.id',
  'i.integration_name',
  'i.organization_id',
  'i.target_type',
  'i.target_id',
  'i.parent_id',
  'i.status',
  'i.configuration',
  'i.space_selection',
  'i.site_selection',
  'i.created_at',
  'i.updated_at',
] as const;

/**
 * What GET /v1/installations/{id} reads, in one query: for a user's token, the token itself (no
 * row: not valid), the installation (null: not there), the user's role in its organization, and
 * whether any endpoint of the installation is disabled (the route then lists them as alerts).
 * Nothing of it is cached: a revoked token or a removed membership counts at once, on every node.
 */
export const viewForUserToken = prepared((db, tokenHash: string, id: string) =>
  db
    .selectFrom('user_tokens as t')
    .leftJoin('installations as i', (join) => join.on('i.id', '=', id).on('i.uninstalled_at', 'is', null))
    .leftJoin('memberships as m', (join) =>
      join.onRef('m.organization_id', '=', 'i.organization_id').onRef('m.user_id', '=', 't.user_id'),
    )
    .select(VIEW_COLUMNS)
    .select(['m.role as member_role', disabledEndpoints, rootGrantedScopes])
    .where('t.token_hash', '=', tokenHash)
    .where('t.revoked_at', 'is', null),
);
/** The same for the operator and installation tokens (their token is looked up on its own first). */
export const viewForOthers = prepared((db, id: string) =>
  db
    .selectFrom('installations as i')
    .select(VIEW_COLUMNS)
    .select([disabledEndpoints, rootGrantedScopes])
    .where('i.id', '=', id)
    .where('i.uninstalled_at', 'is', null),
);

/** The grant of the installation's organization installation (its own at organization level). */
function rootGrantedScopes(eb: ExpressionBuilder<Database & { i: Row }, 'i'>) {
  return eb.fn
    .coalesce(
      'i.granted_scopes',
      eb.selectFrom('installations as p').select('p.granted_scopes').whereRef('p.id', '=', 'i.parent_id'),
    )
    .as('root_granted_scopes');
}

function disabledEndpoints(eb: ExpressionBuilder<Database & { i: Row }, 'i'>) {
  return eb
    .exists(
      eb
        .selectFrom('endpoints as e')
        .select('e.id')
        .whereRef('e.installation_id', '=', 'i.id')
        .where('e.disabled_at', 'is not', null),
    )
    .as('disabled_endpoints');
}

/** The installation as it is inside `trx`, locked on PostgreSQL until it ends. */
export function lockInstallation(trx: Transaction<Database>, dialect: Dialect, id: string) {
  return trx
    .selectFrom('installations')
    .selectAll()
    .where('id', '=', id)
    .where('uninstalled_at', 'is', null)
    .$if(dialect === 'postgres', (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** The installation, whatever its state (it exists). */
export function installationOrThrow(trx: Transaction<Database>, id: string) {
  return trx.selectFrom('installations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The places (ids) of `kind` an organization installation is installed into, in order. */
export async function listedPlaces(db: Kysely<Database>, parentId: string, kind: Kind): Promise<string[]> {
  return db
    .selectFrom('installations')
    .select('target_id')
    .where('parent_id', '=', parentId)
    .where('target_type', '=', kind)
    .where('uninstalled_at', 'is', null)
    .orderBy('target_id')
    .execute()
    .then((rows) => rows.map((r) => r.target_id));
}

/** The installations of `kind` below an organization installation, with their places. */
export function installedPlaces(trx: Transaction<Database>, parentId: string, kind: Kind) {
  return trx
    .selectFrom('installations')
    .select(['id', 'target_id'])
    .where('parent_id', '=', parentId)
    .where('target_type', '=', kind)
    .where('uninstalled_at', 'is', null)
    .execute();
}

/** The ids of every installation below an organization installation. */
export function installationsBelow(trx: Transaction<Database>, parentId: string) {
  return trx
    .selectFrom('installations')
    .select('id')
    .where('parent_id', '=', parentId)
    .where('uninstalled_at', 'is', null)
    .execute();
}

/** The organization installations that select `all` spaces (sites) of the organization. */
export function selectingAll(trx: Transaction<Database>, organizationId: string, kind: Kind) {
  return trx
    .selectFrom('installations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('target_type', '=', 'organization')
    .where(kind === 'space' ? 'space_selection' : 'site_selection', '=', 'all')
    .where('uninstalled_at', 'is', null)
    .execute();
}

/** The installation of the integration in that place, if there is one. */
export function installedIn(trx: Transaction<Database>, integration: string, target: { type: TargetType; id: string }) {
  return trx
    .selectFrom('installations')
    .select('id')
    .where('integration_name', '=', integration)
    .where('target_type', '=', target.type)
    .where('target_id', '=', target.id)
    .where('uninstalled_at', 'is', null)
    .executeTakeFirst();
}

export async function insertInstallation(trx: Transaction<Database>, row: Row): Promise<void> {
  await trx.insertInto('installations').values(row).execute();
}

/** Marks an installation changed (its selection is derived from the installations below it). */
export async function touch(trx: Transaction<Database>, id: string, at: number) {
  await trx.updateTable('installations').set(laterThan(at)).where('id', '=', id).execute();
}

export async function setConfiguration(
  trx: Transaction<Database>,
  id: string,
  configuration: string,
  status: InstallationStatus,
  now: number,
) {
  await trx
    .updateTable('installations')
    .set({ configuration, status })
    .set(laterThan(now))
    .where('id', '=', id)
    .execute();
}

export async function setStatus(trx: Transaction<Database>, id: string, status: InstallationStatus, now: number) {
  await trx.updateTable('installations').set({ status }).set(laterThan(now)).where('id', '=', id).execute();
}

/** Sets an organization installation's selection mode for spaces or sites. */
export async function setSelectionMode(
  trx: Transaction<Database>,
  id: string,
  kind: Kind,
  mode: Selection,
  now: number,
) {
  await trx
    .updateTable('installations')
    .set(kind === 'space' ? { space_selection: mode } : { site_selection: mode })
    .set(laterThan(now))
    .where('id', '=', id)
    .execute();
}

/** Marks installations removed; answers those this statement removed. */
export function markRemoved(trx: Transaction<Database>, ids: string[], now: number) {
  return trx
    .updateTable('installations')
    .set({ uninstalled_at: now, updated_at: now })
    .where('id', 'in', ids)
    .where('uninstalled_at', 'is', null)
    .returningAll()
    .execute();
}

/**
 * `updated_at` set to `at`, or one more than it was when that is not later: every change of an
 * installation gives it a new, larger value, which the selection cache keys on (so every update of
 * an installation sets its `updated_at` through this).
 */
export function laterThan(at: number) {
  return {
    updated_at: (eb: ExpressionBuilder<Database, 'installations'>) =>
      eb
        .case()
        .when('updated_at', '>=', at)
        .then(eb('updated_at', '+', 1))
        .else(at)
        .end(),
  };
}

/** Records a status change with its time and cause. */
export async function recordStatus(
  trx: Transaction<Database>,
  installationId: string,
  from: InstallationStatus | null,
  to: InstallationStatus,
  cause: string,
  at: number,
) {
  await trx
    .insertInto('installation_status_changes')
    .values({ installation_id: installationId, from_status: from, to_status: to, cause, at })
    .execute();
}

export function statusChanges(db: Kysely<Database>, installationId: string) {
  return db
    .selectFrom('installation_status_changes')
    .selectAll()
    .where('installation_id', '=', installationId)
    .orderBy('id')
    .execute();
}

/** The organization installations of an organization, oldest first. */
export function organizationInstallationsOf(db: Kysely<Database>, organizationId: string) {
  return db
    .selectFrom('installations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('target_type', '=', 'organization')
    .where('uninstalled_at', 'is', null)
    .orderBy('created_at')
    .execute();
}

/** The installations in a space or site, oldest first. */
export function installationsIn(db: Kysely<Database>, type: Kind, id: string) {
  return db
    .selectFrom('installations')
    .selectAll()
    .where('target_type', '=', type)
    .where('target_id', '=', id)
    .where('uninstalled_at', 'is', null)
    .orderBy('created_at')
    .execute();
}

/** The ids of every installation ever made in a space or site, uninstalled ones too. */
export async function everInstalledIn(db: Kysely<Database>, type: Kind, id: string): Promise<string[]> {
  const rows = await db
    .selectFrom('installations')
    .select('id')
    .where('target_type', '=', type)
    .where('target_id', '=', id)
    .execute();
  return rows.map((row) => row.id);
}

/** The installation (not uninstalled), read without a prepared statement. */
export function activeInstallation(db: Kysely<Database>, id: string) {
  return db
    .selectFrom('installations')
    .selectAll()
    .where('id', '=', id)
    .where('uninstalled_at', 'is', null)
    .executeTakeFirst();
}

/** The installation below an organization installation in one place. */
export function installationBelowIn(db: Kysely<Database>, parentId: string, place: { type: Kind; id: string }) {
  return db
    .selectFrom('installations')
    .selectAll()
    .where('parent_id', '=', parentId)
    .where('target_type', '=', place.type)
    .where('target_id', '=', place.id)
    .where('uninstalled_at', 'is', null)
    .executeTakeFirst();
}

/** Whether an organization installation is installed in one place (the id of that installation). */
export function installedBelowIn(db: Kysely<Database>, parentId: string, place: { type: Kind; id: string }) {
  return db
    .selectFrom('installations')
    .select('id')
    .where('parent_id', '=', parentId)
    .where('target_type', '=', place.type)
    .where('target_id', '=', place.id)
    .where('uninstalled_at', 'is', null)
    .executeTakeFirst();
}

/** The space and site installations below an organization installation, by place. */
export function placesBelow(db: Kysely<Database>, parentId: string) {
  return db
    .selectFrom('installations')
    .select(['id', 'target_type', 'target_id', 'status'])
    .where('parent_id', '=', parentId)
    .where('uninstalled_at', 'is', null)
    .orderBy('target_type')
    .orderBy('target_id')
    .execute();
}
