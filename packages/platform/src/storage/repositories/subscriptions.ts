/**
 * The statements of webhook subscriptions: endpoints with `subscribed = 1` (the event types an
 * installation selected, its headers, its delivery policy). Routing reads the live ones with the
 * installations of a place (receivers.ts); these write them and read them for the API.
 */
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { Database } from '../schema.js';

export type EndpointRow = Selectable<Database['endpoints']>;

/** The installation's live subscriptions: the configuration's first, then the others oldest first. */
export function liveOf(db: Kysely<Database>, installationId: string) {
  return db
    .selectFrom('endpoints')
    .selectAll()
    .where('installation_id', '=', installationId)
    .where('subscribed', '=', 1)
    .where('removed_at', 'is', null)
    .orderBy('from_configuration', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** One live subscription of the installation, or undefined. */
export function liveById(db: Kysely<Database>, installationId: string, id: string) {
  return db
    .selectFrom('endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('installation_id', '=', installationId)
    .where('subscribed', '=', 1)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

/** The live subscription the installation's configuration edits, or undefined. */
export function configurationSubscription(trx: Kysely<Database>, installationId: string) {
  return trx
    .selectFrom('endpoints')
    .selectAll()
    .where('installation_id', '=', installationId)
    .where('from_configuration', '=', 1)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

/**
 * The installation's endpoint of this URL of one kind: its live subscription (a URL is subscribed
 * once), or its plain endpoint (where deliveries went, if they did).
 */
export function withUrl(trx: Kysely<Database>, installationId: string, url: string, kind: 'live' | 'plain') {
  return trx
    .selectFrom('endpoints')
    .select(['id'])
    .where('installation_id', '=', installationId)
    .where('url', '=', url)
    .where('subscribed', '=', kind === 'live' ? 1 : 0)
    .$if(kind === 'live', (qb) => qb.where('removed_at', 'is', null))
    .executeTakeFirst();
}

export async function insert(trx: Kysely<Database>, row: Insertable<Database['endpoints']>): Promise<void> {
  await trx.insertInto('endpoints').values(row).execute();
}

/** Changes a subscription (or makes a plain endpoint one); answers it as it is now. */
export function update(trx: Kysely<Database>, id: string, changes: Updateable<Database['endpoints']>) {
  return trx.updateTable('endpoints').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Removes a live subscription (its row stays: its deliveries point at it); answers whether one was removed. */
export async function remove(trx: Kysely<Database>, installationId: string, id: string, now: number) {
  const removed = await trx
    .updateTable('endpoints')
    .set({ removed_at: now, updated_at: now })
    .where('id', '=', id)
    .where('installation_id', '=', installationId)
    .where('subscribed', '=', 1)
    .where('removed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return removed !== undefined;
}

/**
 * Webhook installations in spaces and sites whose configuration has never been made a
 * subscription (made by a version before schema 21): the start adopts them.
 */
export function notAdopted(db: Kysely<Database>, integrationName: string) {
  return db
    .selectFrom('installations as i')
    .select(['i.id', 'i.target_type', 'i.configuration'])
    .where('i.integration_name', '=', integrationName)
    .where('i.target_type', 'in', ['space', 'site'])
    .where('i.uninstalled_at', 'is', null)
    .where('i.configuration', 'like', '%"url"%')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('endpoints as e')
            .select('e.id')
            .whereRef('e.installation_id', '=', 'i.id')
            .where('e.from_configuration', '=', 1),
        ),
      ),
    )
    .execute();
}

export type Trx = Transaction<Database>;
