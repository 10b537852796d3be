/** The statements of installation tokens: stored hashed for lookup and sealed for the envelopes. */
import type { Insertable, Kysely, Transaction } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';

export async function insertToken(trx: Transaction<Database>, row: Insertable<Database['installation_tokens']>) {
  await trx.insertInto('installation_tokens').values(row).execute();
}

/** Revokes the tokens of these installations. */
export async function revokeTokensOf(trx: Transaction<Database>, installationIds: string[], now: number) {
  await trx
    .updateTable('installation_tokens')
    .set({ revoked_at: now })
    .where('installation_id', 'in', installationIds)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes the tokens of one installation. */
export async function revokeTokens(trx: Transaction<Database>, installationId: string, now: number) {
  await trx
    .updateTable('installation_tokens')
    .set({ revoked_at: now })
    .where('installation_id', '=', installationId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** The installation's newest valid token, sealed. */
export function currentSealedToken(db: Kysely<Database>, installationId: string) {
  return db
    .selectFrom('installation_tokens')
    .select('token')
    .where('installation_id', '=', installationId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('token_hash', 'desc')
    .executeTakeFirst();
}

/** The installation a token in force belongs to, with the token's scopes (every request runs it: prepared). */
export const installationByToken = prepared((db, hash: string) =>
  db
    .selectFrom('installation_tokens as t')
    .innerJoin('installations as i', 'i.id', 't.installation_id')
    .selectAll('i')
    .select(['t.installation_id', 't.scopes'])
    .where('t.token_hash', '=', hash)
    .where('t.revoked_at', 'is', null)
    .where('i.uninstalled_at', 'is', null),
);
