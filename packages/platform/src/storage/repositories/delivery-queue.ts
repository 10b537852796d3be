/**
 * The statements of the delivery engine's queue: deliveries claimed with a lease (`claimed_until`;
 * PostgreSQL: FOR UPDATE SKIP LOCKED, so several nodes share the work), leases moved and given
 * back, and when the next retry is due. Every write of a claimed row checks the lease it was
 * claimed with, so a node that lost a row (its lease ran out, another node took it) changes nothing.
 */
import { CompiledQuery, type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { CombinedWrites } from '../combined-writes.js';
import { insertThenUpdate } from '../insert-then-update.js';
import { PLANNED_EACH_RUN } from '../prepared.js';
import type { Database } from '../schema.js';
import { idsByLease } from './leases.js';

export type DeliveryRow = Selectable<Database['deliveries']>;
type Dialect = 'sqlite' | 'postgres';

/** Rows per statement when many are updated by id. */
const ID_CHUNK = 200;

/**
 * The conditions of the partial indexes the queue reads (`deliveries_due`, `deliveries_retries`,
 * `deliveries_waiting_by_endpoint`), written as literals: a PostgreSQL plan kept for every run of a
 * prepared statement is made without its parameters' values, and with `status = $1` it cannot use
 * an index that holds only pending rows, so it read the whole table. Every statement that reads
 * pending deliveries writes `status` with `PENDING`.
 */
export const PENDING = sql.lit<'pending'>('pending');
const NONE = sql.lit(0);

/**
 * Due deliveries no node holds (never claimed, or their lease ran out), oldest due first: retries
 * (`attempts > 0`) up to `retries`, first attempts up to `firsts`, leaving out `endpoints`.
 * Locked until the transaction ends on PostgreSQL; `claim` then takes those the caller keeps.
 */
export async function dueDeliveries(
  trx: Transaction<Database>,
  dialect: Dialect,
  options: { now: number; retries: number; firsts: number; leaveOut: readonly string[] },
): Promise<{ retries: DeliveryRow[]; firsts: DeliveryRow[] }> {
  const { now } = options;
  const due = (retry: boolean, limit: number) =>
    limit <= 0
      ? Promise.resolve([] as DeliveryRow[])
      : trx
          .selectFrom('deliveries')
          .selectAll()
          .where('status', '=', PENDING)
          .where('attempts', retry ? '>' : '=', NONE)
          .where('next_attempt_at', '<=', now)
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
          .$if(!retry && options.leaveOut.length > 0, (qb) => qb.where('endpoint_id', 'not in', [...options.leaveOut]))
          .orderBy('next_attempt_at')
          .limit(limit)
          .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked())
          .execute();
  return { retries: await due(true, options.retries), firsts: await due(false, options.firsts) };
}

/**
 * First attempts of one endpoint that no node has claimed (never, or given back), due by `now`,
 * oldest first, at most `limit`: they are read from their own index, with no row of another
 * endpoint. Rows whose lease ran out are `dueDeliveries`'s. Locked as `dueDeliveries`'s are.
 */
export function waitingFor(
  trx: Transaction<Database>,
  dialect: Dialect,
  options: { now: number; endpointId: string; limit: number },
): Promise<DeliveryRow[]> {
  return trx
    .selectFrom('deliveries')
    .selectAll()
    .where('endpoint_id', '=', options.endpointId)
    .where('status', '=', PENDING)
    .where('attempts', '=', NONE)
    .where('claimed_until', 'is', null)
    .where('next_attempt_at', '<=', options.now)
    .orderBy('next_attempt_at')
    .limit(options.limit)
    .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked())
    .execute();
}

/** Claims rows read by `dueDeliveries` or `waitingFor` in the same transaction: each gets `lease`. */
export async function claim(trx: Transaction<Database>, rows: DeliveryRow[], lease: number): Promise<void> {
  for (let i = 0; i < rows.length; i += ID_CHUNK) {
    const ids = rows.slice(i, i + ID_CHUNK).map((row) => row.id);
    await trx.updateTable('deliveries').set({ claimed_until: lease }).where('id', 'in', ids).execute();
  }
  for (const row of rows) row.claimed_until = lease;
}

/** Moves claimed rows to a new lease where this node still holds them and they are pending; answers the ids moved. */
export async function moveLeases(trx: Transaction<Database>, rows: DeliveryRow[], lease: number): Promise<Set<string>> {
  const moved = new Set<string>();
  for (const [old, ids] of idsByLease(rows, ID_CHUNK)) {
    const answer = await trx
      .updateTable('deliveries')
      .set({ claimed_until: lease })
      .where('id', 'in', ids)
      .where('claimed_until', '=', old)
      .where('status', '=', 'pending')
      .returning('id')
      .execute();
    for (const { id } of answer) moved.add(id);
  }
  return moved;
}

/** Gives claimed rows back, unclaimed, for any node's next claim (where this node still holds their lease). */
export async function letGo(trx: Transaction<Database>, rows: DeliveryRow[]): Promise<void> {
  for (const [lease, ids] of idsByLease(rows, ID_CHUNK)) {
    await trx
      .updateTable('deliveries')
      .set({ claimed_until: null })
      .where('id', 'in', ids)
      .where('claimed_until', '=', lease)
      .execute();
  }
}

/** When the next retry no node holds is due (Unix ms), if any. */
export async function nextRetryDue(db: Kysely<Database>, now: number): Promise<number | undefined> {
  const next = await db
    .selectFrom('deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('due'))
    .where('status', '=', PENDING)
    .where('attempts', '>', NONE)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .executeTakeFirst();
  return next?.due === null || next?.due === undefined ? undefined : Number(next.due);
}

/** Pending deliveries from before migration 004, which have no endpoint or destination yet. */
export function pendingWithoutDestination(db: Kysely<Database>) {
  return db
    .selectFrom('deliveries')
    .select(['id', 'installation_id', 'url'])
    .where('status', '=', 'pending')
    .where('destination', 'is', null)
    .execute();
}

export async function setEndpoint(
  db: Kysely<Database>,
  id: string,
  endpoint: { id: string; destination: string } | undefined,
): Promise<void> {
  await db
    .updateTable('deliveries')
    .set({ endpoint_id: endpoint?.id ?? null, destination: endpoint?.destination ?? 'invalid:' })
    .where('id', '=', id)
    .execute();
}

/** Frees every claim of pending deliveries (a SQLite node starting: one process owns the file). */
export async function freeAllClaims(db: Kysely<Database>): Promise<void> {
  await db.updateTable('deliveries').set({ claimed_until: null }).where('status', '=', 'pending').execute();
}

/** The attempt's line, without its delivery's id. */
export type AttemptLine = Omit<Insertable<Database['delivery_attempts']>, 'delivery_id'>;
/** A delivery's state after an attempt: every column an attempt sets. */
export type AttemptState = Pick<
  DeliveryRow,
  'attempts' | 'status' | 'next_attempt_at' | 'claimed_until' | 'last_error' | 'updated_at'
>;

/**
 * Writes an attempt's row and the delivery's new state in one write, only while the delivery's
 * lease is still this node's: answers the deliveries updated (0: the lease was lost). In a
 * transaction: one statement on PostgreSQL, two on SQLite. On PostgreSQL outside a transaction
 * (group-commit.ts, `standalone`), the results of attempts that end together are written together,
 * in one statement (combined-writes.ts).
 */
export function writeAttempt(
  trx: Transaction<Database>,
  dialect: Dialect,
  row: Pick<DeliveryRow, 'id' | 'claimed_until'>,
  attempt: AttemptLine,
  state: AttemptState,
): Promise<number> {
  if (dialect === 'postgres' && !trx.isTransaction) return attemptsTogether(trx).run({ row, attempt, state });
  return writeOneAttempt(trx, dialect, { row, attempt, state });
}

function writeOneAttempt(
  trx: Transaction<Database>,
  dialect: Dialect,
  { row, attempt, state }: AttemptResult,
): Promise<number> {
  return insertThenUpdate(
    trx,
    dialect,
    { into: 'delivery_attempts', values: { delivery_id: row.id, ...attempt } },
    { table: 'deliveries', set: state, where: { id: row.id, claimed_until: row.claimed_until } },
  );
}

type AttemptResult = { row: Pick<DeliveryRow, 'id' | 'claimed_until'>; attempt: AttemptLine; state: AttemptState };

const combined = new WeakMap<Kysely<Database>, CombinedWrites<AttemptResult, number>>();

/** The combined attempt results of one PostgreSQL database. */
function attemptsTogether(db: Kysely<Database>): CombinedWrites<AttemptResult, number> {
  let writes = combined.get(db);
  if (writes === undefined) {
    // As many statements at once as the group commit runs transactions (group-commit.ts).
    writes = new CombinedWrites((results) => writeAttempts(db, results), { parallel: 4 });
    combined.set(db, writes);
  }
  return writes;
}

/**
 * PostgreSQL: the results of several attempts in one statement, from one array per column. Each
 * delivery is updated where its lease is still the one given, and only the attempts of those
 * updated get their line, as `writeAttempt` does for one. Answers 1 or 0 per result, in order.
 */
async function writeAttempts(db: Kysely<Database>, results: AttemptResult[]): Promise<number[]> {
  // One alone goes as before: a statement of arrays costs PostgreSQL more for a single row.
  // (Outside a transaction, as group-commit.ts runs a standalone write.)
  if (results.length === 1)
    return [await writeOneAttempt(db as Transaction<Database>, 'postgres', results[0] as AttemptResult)];
  const column = <T>(of: (result: AttemptResult) => T) => results.map(of);
  const { rows } = await db.executeQuery<{ id: string }>(
    CompiledQuery.raw(WRITE_ATTEMPTS, [
      column((r) => r.row.id),
      column((r) => r.row.claimed_until),
      column((r) => r.state.attempts),
      column((r) => r.state.status),
      column((r) => r.state.next_attempt_at),
      column((r) => r.state.claimed_until),
      column((r) => r.state.last_error),
      column((r) => r.state.updated_at),
      column((r) => r.attempt.number),
      column((r) => r.attempt.at),
      column((r) => r.attempt.status ?? null),
      column((r) => r.attempt.duration_ms),
      column((r) => r.attempt.error ?? null),
      column((r) => r.attempt.response_excerpt ?? null),
    ]),
  );
  const updated = new Set(rows.map((row) => row.id));
  return results.map((r) => (updated.has(r.row.id) ? 1 : 0));
}

/**
 * Planned at each run, as outbox.ts's settle is (decision 040): prepared by name, PostgreSQL may
 * keep one plan made for arrays of unknown length while the table was new and small, a scan of the
 * whole table kept as it grows.
 */
const WRITE_ATTEMPTS = `${PLANNED_EACH_RUN}with r as (
    select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[],
      $7::text[], $8::bigint[], $9::bigint[], $10::bigint[], $11::integer[], $12::bigint[], $13::text[], $14::text[])
    as r (id, lease, attempts, status, next_attempt_at, claimed_until, last_error, updated_at,
      number, at, answer, duration_ms, error, response_excerpt)),
  updated as (
    update deliveries as d
       set attempts = r.attempts, status = r.status, next_attempt_at = r.next_attempt_at,
           claimed_until = r.claimed_until, last_error = r.last_error, updated_at = r.updated_at
      from r
     where d.id = r.id and d.claimed_until = r.lease
    returning d.id),
  logged as (
    insert into delivery_attempts (delivery_id, number, at, status, duration_ms, error, response_excerpt)
    select r.id, r.number, r.at, r.answer, r.duration_ms, r.error, r.response_excerpt
      from r join updated on updated.id = r.id)
select id from updated`;
