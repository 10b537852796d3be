/** The statements of the dispatch log as it is read (lines are written with their row's outcome: outbox.ts). */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * One page of the installation's dispatch log, newest first by the time each line records, then by
 * id: those after `before` in that order (the last line of the page before; a line known by its
 * id alone, from an older cursor, by id only), leaving out the event types in `leaveOut`. Asks for
 * `limit` rows.
 */
export function dispatchPage(
  db: Kysely<Database>,
  installationId: string,
  options: {
    /** With `at` and no `id`: every line at `at` came before. */
    before?: { id?: number | undefined; at?: number | undefined } | undefined;
    leaveOut?: readonly string[] | undefined;
    limit: number;
  },
) {
  const { before, leaveOut } = options;
  return db
    .selectFrom('dispatches')
    .selectAll()
    .where('installation_id', '=', installationId)
    .$if(before !== undefined, (qb) =>
      qb.where((eb) => {
        const { id, at } = before as { id?: number; at?: number };
        if (at === undefined) return eb('id', '<', id as number);
        if (id === undefined) return eb('at', '<', at);
        return eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('id', '<', id)])]);
      }),
    )
    .$if(leaveOut !== undefined && leaveOut.length > 0, (qb) =>
      qb.where('event_type', 'not in', leaveOut as readonly string[]),
    )
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .execute();
}

/** The dispatches of one event to these installations since it was received, in order. */
export function dispatchesOfEvent(
  db: Kysely<Database>,
  installationIds: string[],
  eventId: string,
  since: number,
  limit: number,
) {
  return db
    .selectFrom('dispatches')
    .selectAll()
    .where('installation_id', 'in', installationIds)
    .where('event_id', '=', eventId)
    .where('at', '>=', since)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The installation's newest dispatch before `at`. */
export function lastDispatchBefore(db: Kysely<Database>, installationId: string, at: number) {
  return db
    .selectFrom('dispatches')
    .select('id')
    .where('installation_id', '=', installationId)
    .where('at', '<', at)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The installation's dispatches above an id, in order. */
export function dispatchesAbove(db: Kysely<Database>, installationId: string, floor: number, limit: number) {
  return db
    .selectFrom('dispatches')
    .selectAll()
    .where('installation_id', '=', installationId)
    .where('id', '>', floor)
    .orderBy('id')
    .limit(limit)
    .execute();
}
