/** The statements of the directory's places: organizations, their spaces and their sites. */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.js';

type Kind = 'space' | 'site';
type Table = 'spaces' | 'sites';
const TABLE = { space: 'spaces', site: 'sites' } as const;

/** An organization whose id is `id` or whose subdomain is `subdomain`. */
export function organizationTaken(trx: Transaction<Database>, id: string, subdomain: string | undefined) {
  return trx
    .selectFrom('organizations')
    .select('id')
    .where((eb) => eb.or([eb('id', '=', id), ...(subdomain ? [eb('subdomain', '=', subdomain)] : [])]))
    .executeTakeFirst();
}

export async function insertOrganization(trx: Transaction<Database>, row: Database['organizations']) {
  await trx.insertInto('organizations').values(row).execute();
}

export function organizationById(db: Kysely<Database>, id: string) {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An organization by its id or its subdomain. */
export function organizationByIdOrSubdomain(db: Kysely<Database>, idOrSubdomain: string) {
  return db
    .selectFrom('organizations')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSubdomain), eb('subdomain', '=', idOrSubdomain)]))
    .executeTakeFirst();
}

export function organizationTitle(db: Kysely<Database>, id: string) {
  return db.selectFrom('organizations').select('title').where('id', '=', id).executeTakeFirst();
}

/** Every organization, for the operator, by title. */
export function allOrganizations(db: Kysely<Database>) {
  return db.selectFrom('organizations').select(['id', 'title']).orderBy('title').execute();
}

/** The organizations a user belongs to, with the user's role, by title. */
export function organizationsOf(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['o.id', 'o.title', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('o.title')
    .execute();
}

export function placeTaken(trx: Transaction<Database>, table: Table, id: string) {
  return trx.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst();
}

export async function insertPlace(
  trx: Transaction<Database>,
  table: Table,
  row: { id: string; organization_id: string; title: string; created_at: number },
) {
  await trx.insertInto(table).values(row).execute();
}

/** A space or site with its organization. */
export function placeOf(db: Kysely<Database>, kind: Kind, id: string) {
  return db
    .selectFrom(kind === 'space' ? 'spaces' : 'sites')
    .select(['id', 'organization_id'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A space or site with its title and organization. */
export function placeWithTitle(db: Kysely<Database>, kind: Kind, id: string) {
  return db
    .selectFrom(kind === 'space' ? 'spaces' : 'sites')
    .select(['id', 'title', 'organization_id'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** These spaces (sites) with their organizations (those that exist). */
export function placesByIds(db: Kysely<Database>, kind: Kind, ids: string[]) {
  return db.selectFrom(TABLE[kind]).select(['id', 'organization_id']).where('id', 'in', ids).execute();
}

/** The ids of every space (site) of an organization. */
export async function placeIdsOf(trx: Transaction<Database>, kind: Kind, organizationId: string) {
  return (await trx.selectFrom(TABLE[kind]).select('id').where('organization_id', '=', organizationId).execute()).map(
    (r) => r.id,
  );
}

/** The spaces (sites) of an organization, by title. */
export function placesOf(db: Kysely<Database>, table: Table, organizationId: string) {
  return db
    .selectFrom(table)
    .select(['id', 'title'])
    .where('organization_id', '=', organizationId)
    .orderBy('title')
    .execute();
}

/** Whether a space (site) exists. */
export function placeExists(db: Kysely<Database>, kind: Kind, id: string) {
  return db
    .selectFrom(kind === 'site' ? 'sites' : 'spaces')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Adds the organization unless it exists. */
export async function ensureOrganization(db: Kysely<Database>, row: Database['organizations']) {
  await db
    .insertInto('organizations')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** A space or site as stored. */
export function placeRow(db: Kysely<Database>, kind: Kind, id: string) {
  return db
    .selectFrom(kind === 'space' ? 'spaces' : 'sites')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
}
