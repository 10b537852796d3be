/** The statements of deliveries as the API sees them: asked for, redelivered, listed with their attempts. */
import type { Kysely, Transaction } from 'kysely';
import { preparedInsert } from '../prepared.js';
import type { Database } from '../schema.js';

type Dialect = 'sqlite' | 'postgres';

const insertNew = preparedInsert((db, rows: readonly Database['deliveries'][]) =>
  db
    .insertInto('deliveries')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['installation_id', 'event_id', 'url']).where('redelivery_of', 'is', null).doNothing(),
    )
    .returning(['id', 'status']),
);

/**
 * Inserts a new delivery; asking again for the same event and URL (a retried dispatch) answers the
 * delivery already made. One insert, and a read after it only when another request made it first.
 */
export async function insertOrExisting(trx: Transaction<Database>, dialect: Dialect, row: Database['deliveries']) {
  const [inserted] = await insertNew.run(trx, dialect, [row]);
  if (inserted) return inserted;
  return trx
    .selectFrom('deliveries')
    .select(['id', 'status'])
    .where('installation_id', '=', row.installation_id)
    .where('event_id', '=', row.event_id)
    .where('url', '=', row.url)
    .where('redelivery_of', 'is', null)
    .executeTakeFirstOrThrow();
}

/** Rows per INSERT statement (18 columns: well under SQLite's limit on bound parameters). */
const CHUNK = 500;

const insertPlain = preparedInsert((db, rows: readonly Database['deliveries'][]) =>
  db.insertInto('deliveries').values(rows),
);

/** Inserts the deliveries routing fanned out to subscriptions (new ids, one per event and subscription). */
export async function insertFannedOut(
  trx: Transaction<Database>,
  dialect: Dialect,
  rows: readonly Database['deliveries'][],
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await insertPlain.run(trx, dialect, rows.slice(i, i + CHUNK));
}

export function deliveryById(db: Kysely<Database>, id: string) {
  return db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertDelivery(db: Kysely<Database>, row: Database['deliveries']): Promise<void> {
  await db.insertInto('deliveries').values(row).execute();
}

/** A page of an installation's deliveries, newest first, after the cursor's position. */
export function deliveriesOf(
  db: Kysely<Database>,
  installationId: string,
  filter: {
    status?: string | undefined;
    eventId?: string | undefined;
    latest?: boolean | undefined;
    after: { createdAt: number; id: string } | undefined;
    limit: number;
  },
) {
  return db
    .selectFrom('deliveries')
    .selectAll()
    .where('installation_id', '=', installationId)
    .$if(filter.status !== undefined, (qb) => qb.where('status', '=', filter.status as 'pending'))
    .$if(filter.eventId !== undefined, (qb) => qb.where('event_id', '=', filter.eventId as string))
    .$if(filter.latest === true, (qb) =>
      qb.where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('deliveries as later')
              .select('later.id')
              .whereRef('later.installation_id', '=', 'deliveries.installation_id')
              .whereRef('later.event_id', '=', 'deliveries.event_id')
              .whereRef('later.url', '=', 'deliveries.url')
              .where('later.redelivery_of', 'is not', null)
              .where((later) =>
                later.or([
                  later('later.created_at', '>', later.ref('deliveries.created_at')),
                  later.and([
                    later('later.created_at', '=', later.ref('deliveries.created_at')),
                    later('later.id', '>', later.ref('deliveries.id')),
                  ]),
                ]),
              ),
          ),
        ),
      ),
    )
    .$if(filter.after !== undefined, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('created_at', '<', filter.after?.createdAt as number),
          eb.and([eb('created_at', '=', filter.after?.createdAt as number), eb('id', '<', filter.after?.id as string)]),
        ]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

/**
 * The events log's deliveries of an installation (fanned out to its subscriptions, or asked for:
 * not redeliveries, which the delivery log shows), newest first by creation, then id: those after
 * `before` in that order (`id` undefined: every one at `at` came before), at most `limit`.
 */
export function eventDeliveriesPage(
  db: Kysely<Database>,
  installationId: string,
  options: { before?: { at: number; id?: string | undefined } | undefined; limit: number },
) {
  const { before } = options;
  return db
    .selectFrom('deliveries')
    .selectAll()
    .where('installation_id', '=', installationId)
    .where('redelivery_of', 'is', null)
    .$if(before !== undefined, (qb) =>
      qb.where((eb) => {
        const { at, id } = before as { at: number; id?: string };
        return id === undefined
          ? eb('created_at', '<', at)
          : eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', id)])]);
      }),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .execute();
}

/** The attempts of these deliveries, in order. */
export function attemptsOf(db: Kysely<Database>, deliveryIds: string[]) {
  return db
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('number')
    .execute();
}

/** The deliveries of one event for these installations, oldest first. */
export function deliveriesOfEvent(db: Kysely<Database>, installationIds: string[], eventId: string, limit: number) {
  return db
    .selectFrom('deliveries')
    .selectAll()
    .where('installation_id', 'in', installationIds)
    .where('event_id', '=', eventId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The installation's deliveries changed at or after `from`, in the order they changed. */
export function deliveriesChangedSince(db: Kysely<Database>, installationId: string, from: number, limit: number) {
  return db
    .selectFrom('deliveries')
    .selectAll()
    .where('installation_id', '=', installationId)
    .where('updated_at', '>=', from)
    .orderBy('updated_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}
