/** The statements of users, their tokens and their memberships. */
import type { Kysely, Transaction } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';

/** The user a token in force belongs to (every request runs it: prepared, never cached). */
export const userByToken = prepared((db, hash: string) =>
  db.selectFrom('user_tokens').select('user_id').where('token_hash', '=', hash).where('revoked_at', 'is', null),
);

/** A user's role in an organization (every request runs it: prepared, never cached). */
export const membership = prepared((db, organizationId: string, userId: string) =>
  db
    .selectFrom('memberships')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId),
);

export function userTaken(trx: Transaction<Database>, id: string) {
  return trx.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
}

export async function insertUser(
  trx: Transaction<Database>,
  user: Database['users'],
  token: Database['user_tokens'],
): Promise<void> {
  await trx.insertInto('users').values(user).execute();
  await trx.insertInto('user_tokens').values(token).execute();
}

export function userById(db: Kysely<Database>, id: string) {
  return db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
}

export function userName(db: Kysely<Database>, id: string) {
  return db.selectFrom('users').select('name').where('id', '=', id).executeTakeFirst();
}

/** The user's newest token in force (its hash). */
export function newestToken(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('user_tokens')
    .select('token_hash')
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/** Sets a user's role in an organization (adds the membership when there is none). */
export async function upsertMembership(db: Kysely<Database>, row: Database['memberships']): Promise<void> {
  await db
    .insertInto('memberships')
    .values(row)
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doUpdateSet({ role: row.role }))
    .execute();
}

/** The members of an organization with their names and roles, by name. */
export function membersOf(db: Kysely<Database>, organizationId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.name', 'm.role'])
    .where('m.organization_id', '=', organizationId)
    .orderBy('u.name')
    .execute();
}
