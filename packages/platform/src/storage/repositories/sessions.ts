/** The statements of dashboard sessions and sign-in codes (both stored by the hash of their secret). */
import type { Insertable, Kysely, Transaction } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';

/** A session in force (every dashboard request reads it: prepared). */
export const sessionByHash = prepared((db, idHash: string, now: number) =>
  db
    .selectFrom('sessions')
    .select(['kind', 'token_hash', 'csrf_token'])
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', now),
);

/** Marks a sign-in code used; answers whether it was in force (unused and not expired). */
export async function useCode(trx: Transaction<Database>, codeHash: string, now: number): Promise<boolean> {
  const used = await trx
    .updateTable('sign_in_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(used.numUpdatedRows) !== 0;
}

/** Adds a session, and removes those that have ended. */
export async function insertSession(trx: Transaction<Database>, row: Insertable<Database['sessions']>, now: number) {
  await trx.deleteFrom('sessions').where('expires_at', '<=', now).execute();
  await trx.insertInto('sessions').values(row).execute();
}

export function deleteSession(trx: Transaction<Database> | Kysely<Database>, idHash: string) {
  return trx.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

export function insertSignInCode(trx: Transaction<Database>, row: Insertable<Database['sign_in_codes']>) {
  return trx.insertInto('sign_in_codes').values(row).execute();
}
