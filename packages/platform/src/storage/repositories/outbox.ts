/**
 * The statements of the dispatch outbox: the rows routing owes each installation (one per event
 * and installation, or a setup event), claimed with a lease (`claimed_until`; PostgreSQL: FOR
 * UPDATE SKIP LOCKED), and settled with their dispatch's log line. Every write of a claimed row
 * checks the lease it was claimed with, so a node that lost a row changes nothing.
 */
import { CompiledQuery, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import { PLANNED_EACH_RUN, preparedInsert } from '../prepared.js';
import type { Database } from '../schema.js';
import { idsByLease } from './leases.js';

export type OutboxRow = Selectable<Database['outbox']>;
export type NewOutboxRow = Insertable<Database['outbox']>;
type Dialect = 'sqlite' | 'postgres';

const CHUNK = 200;

/** Events no dispatcher has routed yet, oldest first. */
export function unroutedEvents(db: Kysely<Database>, limit: number) {
  return db
    .selectFrom('events')
    .select(['event_id', 'type', 'payload'])
    .where('routed_at', 'is', null)
    .orderBy('received_at')
    .limit(limit)
    .execute();
}

/** Marks events routed where no other node has: answers those this transaction marked. */
export async function markRouted(trx: Transaction<Database>, eventIds: string[], now: number): Promise<Set<string>> {
  const marked = await trx
    .updateTable('events')
    .set({ routed_at: now })
    .where('event_id', 'in', eventIds)
    .where('routed_at', 'is', null)
    .returning('event_id')
    .execute();
  return new Set(marked.map((m) => m.event_id));
}

/** Inserts owed rows; answers their ids by installation and event (RETURNING's order is not promised). */
const insertRows = preparedInsert((db, rows: readonly NewOutboxRow[]) =>
  db.insertInto('outbox').values(rows).returning(['id', 'installation_id', 'event_id']),
);

export async function insertOwed(
  trx: Transaction<Database>,
  dialect: Dialect,
  rows: NewOutboxRow[],
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (let i = 0; i < rows.length; i += CHUNK) {
    const inserted = await insertRows.run(trx, dialect, rows.slice(i, i + CHUNK));
    for (const row of inserted) ids.set(owedKey(row), row.id);
  }
  return ids;
}

export const owedKey = (row: { installation_id: string; event_id?: string | null }) =>
  `${row.installation_id} ${row.event_id}`;

/** The outcome of a row routing wrote settled: its installation was paused (the event is not kept). */
export const SKIPPED_PAUSED = 'skipped: paused';

/** A row routing wrote settled (`dispatched_at` set): recorded, never dispatched. */
export const settledAtRouting = (row: Pick<NewOutboxRow, 'dispatched_at'>) =>
  row.dispatched_at !== null && row.dispatched_at !== undefined;

/** The dispatch-log line of a row written settled: the platform's, no integration called. */
export function skippedLine(row: NewOutboxRow): Insertable<Database['dispatches']> {
  return {
    installation_id: row.installation_id,
    event_id: row.event_id ?? null,
    event_type: row.event_type,
    host: 'platform',
    status: 0,
    duration_ms: 0,
    error: null,
    logs: '[]',
    at: row.dispatched_at as number,
    skipped: (row.outcome ?? SKIPPED_PAUSED).replace(/^skipped: /, ''),
  };
}

/**
 * Inserts the rows routing decided: those owed (answers their ids, by `owedKey`), and those it
 * settled (a paused installation's), unclaimed, each with its dispatch-log line.
 */
export async function insertRouted(
  trx: Transaction<Database>,
  dialect: Dialect,
  rows: NewOutboxRow[],
): Promise<Map<string, number>> {
  const settled = rows.filter(settledAtRouting);
  if (settled.length === 0) return insertOwed(trx, dialect, rows);
  const owed = rows.filter((row) => !settledAtRouting(row));
  // Never claimed: the dispatcher takes none of them (Dispatcher.take).
  await insertOwed(trx, dialect, settled);
  for (let i = 0; i < settled.length; i += CHUNK) {
    await trx
      .insertInto('dispatches')
      .values(settled.slice(i, i + CHUNK).map(skippedLine))
      .execute();
  }
  return owed.length > 0 ? insertOwed(trx, dialect, owed) : new Map();
}

/**
 * Owed rows no node holds, available now, in order, leaving out `installations` and
 * `integrations`, and rows behind a setup event their installation is still owed; with `of`, only
 * that installation's rows (read from its own index, with no row of another installation).
 */
export function claimable(
  trx: Transaction<Database>,
  dialect: Dialect,
  options: { now: number; limit: number; installations: string[]; integrations: string[]; of?: string },
) {
  const { now } = options;
  return trx
    .selectFrom('outbox as o')
    .selectAll('o')
    .$if(options.of !== undefined, (qb) => qb.where('o.installation_id', '=', options.of as string))
    .where('o.dispatched_at', 'is', null)
    .where('o.available_at', '<=', now)
    .where((eb) => eb.or([eb('o.claimed_until', 'is', null), eb('o.claimed_until', '<', now)]))
    .$if(options.installations.length > 0, (qb) => qb.where('o.installation_id', 'not in', options.installations))
    .$if(options.integrations.length > 0, (qb) => qb.where('o.integration_name', 'not in', options.integrations))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('outbox as earlier')
            .select('earlier.id')
            .whereRef('earlier.installation_id', '=', 'o.installation_id')
            .where('earlier.dispatched_at', 'is', null)
            .where('earlier.event_id', 'is', null)
            .whereRef('earlier.id', '<', 'o.id'),
        ),
      ),
    )
    .orderBy('o.id')
    .limit(options.limit)
    .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked())
    .execute();
}

/** Claims rows read by `claimable` in the same transaction: each gets `lease`. */
export async function claim(trx: Transaction<Database>, rows: OutboxRow[], lease: number): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const ids = rows.slice(i, i + CHUNK).map((row) => row.id);
    await trx.updateTable('outbox').set({ claimed_until: lease }).where('id', 'in', ids).execute();
  }
  for (const row of rows) row.claimed_until = lease;
}

/** Gives rows back unclaimed, where this node still holds their lease. */
export async function release(trx: Transaction<Database>, rows: OutboxRow[]): Promise<void> {
  for (const [lease, ids] of idsByLease(rows, CHUNK)) {
    await trx
      .updateTable('outbox')
      .set({ claimed_until: null })
      .where('id', 'in', ids)
      .where('claimed_until', '=', lease)
      .execute();
  }
}

/** Moves claimed rows to a new lease where this node still holds them and they are owed; answers the ids moved. */
export async function moveLeases(trx: Transaction<Database>, rows: OutboxRow[], lease: number): Promise<Set<number>> {
  const moved = new Set<number>();
  for (const [old, ids] of idsByLease(rows, CHUNK)) {
    const answer = await trx
      .updateTable('outbox')
      .set({ claimed_until: lease })
      .where('id', 'in', ids)
      .where('claimed_until', '=', old)
      .where('dispatched_at', 'is', null)
      .returning('id')
      .execute();
    for (const { id } of answer) moved.add(id);
  }
  return moved;
}

/** How a dispatched row ends: its new state (a retry: not dispatched, its next attempt's time) and its log line. */
export interface Settled {
  outcome: string;
  /** null while it is retried. */
  dispatched_at: number | null;
  attempts: number;
  available_at: number;
  /** Its dispatch-log line (none for a row skipped because its installation is gone). */
  record?: Insertable<Database['dispatches']> | undefined;
}

const SETTLE_SQLITE = [
  'update outbox set dispatched_at = ?, outcome = ?, attempts = ?, available_at = ?, claimed_until = null',
  'where id = ? and claimed_until = ?',
].join(' ');
const LOG_COLUMNS = 'installation_id, event_id, event_type, host, status, duration_ms, error, logs, at, skipped';
const LOG_SQLITE = `insert into dispatches (${LOG_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/**
 * PostgreSQL: every row's new state and log line in one statement (arrays, one per column). The
 * update keeps only the rows whose lease still holds, the log lines are inserted for those alone,
 * in the order given, and the answer is the ids it updated.
 *
 * Planned at each run, for the arrays' real length. Prepared by name, PostgreSQL kept one plan for
 * every run, made for arrays of unknown length while the table was new and never analyzed: a hash
 * join over a scan of the whole outbox, kept as it grew, so every settle read every row.
 */
const SETTLE_POSTGRES = `${PLANNED_EACH_RUN}with v (id, lease, dispatched_at, outcome, attempts, available_at) as (
  select * from unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::integer[], $6::bigint[])
), updated as (
  update outbox o set dispatched_at = v.dispatched_at, outcome = v.outcome, attempts = v.attempts,
    available_at = v.available_at, claimed_until = null
  from v where o.id = v.id and o.claimed_until = v.lease
  returning o.id
), logged as (
  insert into dispatches (${LOG_COLUMNS})
  select ${LOG_COLUMNS} from unnest($7::bigint[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[],
    $13::bigint[], $14::text[], $15::text[], $16::bigint[], $17::text[])
    with ordinality as d (outbox_id, ${LOG_COLUMNS}, n)
  where d.outbox_id in (select id from updated)
  order by d.n
)
select id from updated`;

/**
 * Settles claimed rows, each with its dispatch-log line, in one write (one statement on
 * PostgreSQL). A row this node no longer holds (its lease moved on) is left as it is, without a log
 * line; answers the ids of those.
 */
export async function settleOwned(
  trx: Transaction<Database>,
  dialect: Dialect,
  rows: (Settled & { row: OutboxRow })[],
): Promise<Set<number>> {
  const lost = new Set<number>();
  if (rows.length === 0) return lost;
  const state = (s: Settled & { row: OutboxRow }) => [s.dispatched_at, s.outcome, s.attempts, s.available_at];
  const line = (r: Insertable<Database['dispatches']>) => [
    r.installation_id,
    r.event_id ?? null,
    r.event_type,
    r.host,
    r.status,
    r.duration_ms,
    r.error ?? null,
    r.logs,
    r.at,
    r.skipped ?? null,
  ];
  if (dialect === 'sqlite') {
    for (const settled of rows) {
      const { row, record } = settled;
      const updated = await trx.executeQuery(
        CompiledQuery.raw(SETTLE_SQLITE, [...state(settled), row.id, row.claimed_until]),
      );
      if (Number(updated.numAffectedRows ?? 0) === 0) lost.add(row.id);
      else if (record) await trx.executeQuery(CompiledQuery.raw(LOG_SQLITE, line(record)));
    }
    return lost;
  }
  // One array per column (transposed), as the statement's unnest takes them.
  const columns = (values: unknown[][], width: number) =>
    Array.from({ length: width }, (_, i) => values.map((value) => value[i]));
  const logged = rows.filter((settled) => settled.record !== undefined);
  const { rows: updated } = await trx.executeQuery<{ id: number }>(
    CompiledQuery.raw(SETTLE_POSTGRES, [
      ...columns(
        rows.map((settled) => [settled.row.id, settled.row.claimed_until, ...state(settled)]),
        6,
      ),
      ...columns(
        logged.map((settled) => [settled.row.id, ...line(settled.record as Insertable<Database['dispatches']>)]),
        11,
      ),
    ]),
  );
  const kept = new Set(updated.map((row) => Number(row.id)));
  for (const { row } of rows) if (!kept.has(row.id)) lost.add(row.id);
  return lost;
}

/**
 * An integration's worker is backed off until `until`: every row owed to it waits (on every node,
 * since the wait is written to the rows), and each installation owed one gets a dispatch-log line
 * saying why.
 */
export async function backOff(
  trx: Transaction<Database>,
  integration: string,
  until: number,
  reason: string,
  now: number,
) {
  const waiting = await trx
    .selectFrom('outbox')
    .select('installation_id')
    .distinct()
    .where('integration_name', '=', integration)
    .where('dispatched_at', 'is', null)
    .execute();
  for (let i = 0; i < waiting.length; i += CHUNK) {
    await trx
      .insertInto('dispatches')
      .values(
        waiting.slice(i, i + CHUNK).map(({ installation_id }) => ({
          installation_id,
          event_id: null,
          event_type: 'circuit_breaker',
          host: 'platform',
          status: 0,
          duration_ms: 0,
          error: reason,
          logs: '[]',
          at: now,
        })),
      )
      .execute();
  }
  await trx
    .updateTable('outbox')
    .set({ available_at: until, outcome: reason })
    .where('integration_name', '=', integration)
    .where('dispatched_at', 'is', null)
    .where('available_at', '<', until)
    .execute();
}

/** Records a dispatch made outside the outbox (a fetch, a render, a completion). */
export async function recordDispatch(trx: Transaction<Database>, record: Insertable<Database['dispatches']>) {
  await trx.insertInto('dispatches').values(record).execute();
}

/** Inserts a row an installation owes itself (its setup or deleted event), unclaimed. */
export async function insertOwn(trx: Transaction<Database>, row: NewOutboxRow): Promise<void> {
  await trx.insertInto('outbox').values(row).execute();
}

/** Frees every claim of rows not yet dispatched (a SQLite node starting: one process owns the file). */
export async function freeAllClaims(db: Kysely<Database>): Promise<void> {
  await db.updateTable('outbox').set({ claimed_until: null }).where('dispatched_at', 'is', null).execute();
}

/** The rows an event was owed, with their outcomes, in order. */
export function owedForEvent(db: Kysely<Database>, eventId: string) {
  return db
    .selectFrom('outbox')
    .select(['installation_id', 'outcome', 'dispatched_at'])
    .where('event_id', '=', eventId)
    .orderBy('id')
    .execute();
}
