/**
 * Storing events with the outbox rows routing decided for them, in one write: an event already
 * stored (its `eventId` seen before) is left as it was, and only the rows of events this write
 * stored are inserted. On PostgreSQL a write of up to `ONE_STATEMENT` events is one statement
 * (the rows' insert joins the events' insert as a data-modifying CTE), so it needs no transaction;
 * on SQLite, where a statement costs no round trip, it is two statements in the shared transaction.
 * Rows routing wrote settled (a paused installation's, `skipped: paused`) are stored with their
 * dispatch-log line and are not answered as owed: nothing dispatches them. The deliveries routing
 * fanned out to webhook subscriptions are written with their events, in the same statement on
 * PostgreSQL.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import { preparedInsert } from '../prepared.js';
import type { Database } from '../schema.js';
import { insertFannedOut } from './deliveries.js';
import { insertRouted, type NewOutboxRow, owedKey, settledAtRouting } from './outbox.js';

type Dialect = 'sqlite' | 'postgres';
/** Rows per INSERT statement (well under SQLite's limit on bound parameters). */
const CHUNK = 500;
/** Events (and as many owed rows) that PostgreSQL stores in one statement. */
export const ONE_STATEMENT = 200;

const insertNew = preparedInsert((db, rows: readonly Database['events'][]) =>
  db
    .insertInto('events')
    .values(rows)
    .onConflict((oc) => oc.column('event_id').doNothing())
    .returning('event_id'),
);

export interface Stored {
  /** The events this write stored (the others were stored before). */
  events: Set<string>;
  /** The ids of the owed rows written, by `owedKey`. */
  owed: Map<string, number>;
}

export function oneStatement(dialect: Dialect, events: number, owed: number): boolean {
  return dialect === 'postgres' && events <= ONE_STATEMENT && owed <= ONE_STATEMENT;
}

export async function storeEvents(
  trx: Transaction<Database>,
  dialect: Dialect,
  events: Database['events'][],
  owed: NewOutboxRow[],
  deliveries: Database['deliveries'][] = [],
): Promise<Stored> {
  if (oneStatement(dialect, events.length, owed.length + deliveries.length))
    return storeInOneStatement(trx, events, owed, deliveries);
  const stored = new Set<string>();
  for (let i = 0; i < events.length; i += CHUNK) {
    const chunk = await insertNew.run(trx, dialect, events.slice(i, i + CHUNK));
    for (const { event_id } of chunk) stored.add(event_id);
  }
  const fannedOut = stored.size === events.length ? deliveries : deliveries.filter((d) => stored.has(d.event_id));
  await insertFannedOut(trx, dialect, fannedOut);
  const rows = owed.filter((row) => stored.has(row.event_id as string));
  return { events: stored, owed: rows.length > 0 ? await insertRouted(trx, dialect, rows) : new Map() };
}

/** The columns of a fanned-out delivery, in the order the one-statement insert writes them. */
const DELIVERY_COLUMNS = [
  'id',
  'installation_id',
  'event_id',
  'type',
  'url',
  'body',
  'status',
  'attempts',
  'next_attempt_at',
  'claimed_until',
  'last_error',
  'endpoint_id',
  'destination',
  'headers',
  'policy',
  'created_at',
  'updated_at',
] as const;

async function storeInOneStatement(
  trx: Transaction<Database>,
  events: Database['events'][],
  owed: NewOutboxRow[],
  deliveries: Database['deliveries'][],
): Promise<Stored> {
  const eventValues = sql.join(
    events.map((e) => sql`(${e.event_id}, ${e.type}, ${e.payload}, ${e.received_at}, ${e.routed_at})`),
  );
  const insertEvents = sql`INSERT INTO events (event_id, type, payload, received_at, routed_at) VALUES ${eventValues}
    ON CONFLICT (event_id) DO NOTHING RETURNING event_id`;
  type Answer = { event_id: string; id: string | number | null; installation_id: string | null };
  // The deliveries of the stored events, in the same statement (a data-modifying CTE runs whether
  // or not the answer reads it).
  const fannedOut =
    deliveries.length === 0
      ? sql``
      : sql`, dl AS (
        INSERT INTO deliveries (${sql.raw(DELIVERY_COLUMNS.join(', '))})
        SELECT v.* FROM (VALUES ${sql.join(
          deliveries.map(
            (d) =>
              sql`(${d.id}::text, ${d.installation_id}::text, ${d.event_id}::text, ${d.type}::text, ${d.url}::text, ${d.body}::text, ${d.status}::text, ${d.attempts}::integer, ${d.next_attempt_at}::bigint, ${d.claimed_until}::bigint, ${d.last_error}::text, ${d.endpoint_id}::text, ${d.destination}::text, ${d.headers}::text, ${d.policy}::text, ${d.created_at}::bigint, ${d.updated_at}::bigint)`,
          ),
        )}) AS v (${sql.raw(DELIVERY_COLUMNS.join(', '))})
        WHERE v.event_id IN (SELECT event_id FROM e)
      )`;
  let answer: Answer[];
  if (owed.length === 0) {
    answer = (
      await sql<Answer>`WITH e AS (${insertEvents})${fannedOut} SELECT event_id, NULL AS id, NULL AS installation_id FROM e`.execute(
        trx,
      )
    ).rows;
  } else {
    // Rows written settled (a paused installation's) come back with their dispatch-log line, not as owed.
    const settled = owed.some(settledAtRouting);
    const skippedLines = settled
      ? sql`, d AS (
        INSERT INTO dispatches (installation_id, event_id, event_type, host, status, duration_ms, error, logs, at, skipped)
        SELECT installation_id, event_id, event_type, 'platform', 0, 0, NULL, '[]', dispatched_at, replace(outcome, 'skipped: ', '')
        FROM o WHERE dispatched_at IS NOT NULL
      )`
      : sql``;
    const rowValues = sql.join(
      owed.map(
        (r) =>
          sql`(${r.installation_id}::text, ${r.integration_name}::text, ${r.event_id}::text, ${r.event_type}::text, ${r.event}::text, ${r.created_at}::bigint, ${r.dispatched_at ?? null}::bigint, ${settledAtRouting(r) ? null : (r.claimed_until ?? null)}::bigint, ${r.outcome ?? null}::text)`,
      ),
    );
    answer = (
      await sql<Answer>`WITH e AS (${insertEvents}),
      o AS (
        INSERT INTO outbox (installation_id, integration_name, event_id, event_type, event, created_at, dispatched_at, claimed_until, outcome)
        SELECT v.* FROM (VALUES ${rowValues}) AS v (installation_id, integration_name, event_id, event_type, event, created_at, dispatched_at, claimed_until, outcome)
        WHERE v.event_id IN (SELECT event_id FROM e)
        RETURNING id, installation_id, event_id, event_type, dispatched_at, outcome
      )${skippedLines}${fannedOut}
      SELECT event_id, NULL::bigint AS id, NULL::text AS installation_id FROM e
      UNION ALL SELECT event_id, id, installation_id FROM o WHERE dispatched_at IS NULL`.execute(trx)
    ).rows;
  }
  const stored: Stored = { events: new Set(), owed: new Map() };
  for (const row of answer) {
    if (row.installation_id === null) stored.events.add(row.event_id);
    else stored.owed.set(owedKey({ installation_id: row.installation_id, event_id: row.event_id }), Number(row.id));
  }
  return stored;
}

/** An event as stored. */
export function eventById(db: Kysely<Database>, eventId: string) {
  return db
    .selectFrom('events')
    .select(['event_id', 'type', 'payload', 'received_at', 'routed_at'])
    .where('event_id', '=', eventId)
    .executeTakeFirst();
}
