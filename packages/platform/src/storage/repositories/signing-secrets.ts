/** The statements of signing secrets (sealed): the current one has no end; a rotation ends the ones before. */
import type { Insertable, Kysely } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';

// Read once by each claim of deliveries, and by each attempt not handed its secrets (a retry): built
// once (storage/prepared.ts), never cached as an answer, so a rotation on any node signs from the next.
// (A dispatch reads them with its context: repositories/dispatch-context.ts.)
export const secretsOf = prepared((db, installationId: string, now: number) =>
  db
    .selectFrom('signing_secrets')
    .select(['secret'])
    .where('installation_id', '=', installationId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id', 'desc'),
);

/**
 * Adds the installation's first secret unless it has one (another request may have created it
 * meanwhile: keep the first).
 */
export async function addFirstSecret(db: Kysely<Database>, row: Insertable<Database['signing_secrets']>) {
  await db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('signing_secrets')
      .select('id')
      .where('installation_id', '=', row.installation_id)
      .executeTakeFirst();
    if (!existing) {
      await trx.insertInto('signing_secrets').values(row).execute();
    }
  });
}

/** Ends the current secret at `expiresAt` and adds `row` as the new current one, in one transaction. */
export async function replaceSecret(
  db: Kysely<Database>,
  row: Insertable<Database['signing_secrets']>,
  expiresAt: number,
) {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('signing_secrets')
      .set({ expires_at: expiresAt })
      .where('installation_id', '=', row.installation_id)
      .where('expires_at', 'is', null)
      .execute();
    await trx.insertInto('signing_secrets').values(row).execute();
  });
}

/** The secrets that still sign after a rotation, each with its end, newest first. */
export function expiringSecrets(db: Kysely<Database>, installationId: string, now: number) {
  return db
    .selectFrom('signing_secrets')
    .select(['secret', 'expires_at'])
    .where('installation_id', '=', installationId)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .execute();
}
