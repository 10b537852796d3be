/**
 * The statements of retention: each deletes a batch of finished rows older than the cutoff
 * (PostgreSQL: FOR UPDATE SKIP LOCKED, so pruners on several nodes take different rows).
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';

type Dialect = 'sqlite' | 'postgres';

/** Outbox rows dispatched before the cutoff: a batch of them. */
export function pruneOutbox(db: Kysely<Database>, dialect: Dialect, cutoff: number, limit: number) {
  return db
    .deleteFrom('outbox')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('outbox as old')
        .select('old.id')
        .where('old.dispatched_at', 'is not', null)
        .where('old.dispatched_at', '<', cutoff)
        .orderBy('old.dispatched_at')
        .limit(limit)
        .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked()),
    )
    .executeTakeFirst();
}

/** Events routed and received before the cutoff, for which no outbox row is still owed: a batch of them. */
export function pruneEvents(db: Kysely<Database>, dialect: Dialect, cutoff: number, limit: number) {
  return db
    .deleteFrom('events')
    .where('event_id', 'in', (eb) =>
      eb
        .selectFrom('events as old')
        .select('old.event_id')
        .where('old.routed_at', 'is not', null)
        .where('old.received_at', '<', cutoff)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('outbox as owed')
                .select('owed.id')
                .whereRef('owed.event_id', '=', 'old.event_id')
                .where('owed.dispatched_at', 'is', null),
            ),
          ),
        )
        .orderBy('old.received_at')
        .limit(limit)
        .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked()),
    )
    .executeTakeFirst();
}

/** Dispatch log or egress rows from before the cutoff: a batch of them. */
export function pruneByAt(
  db: Kysely<Database>,
  dialect: Dialect,
  table: 'dispatches' | 'egress',
  cutoff: number,
  limit: number,
) {
  return (db as Kysely<Pick<Database, 'dispatches'>>)
    .deleteFrom(table as 'dispatches')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom(`${table as 'dispatches'} as old`)
        .select('old.id')
        .where('old.at', '<', cutoff)
        .orderBy('old.at')
        .limit(limit)
        .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked()),
    )
    .executeTakeFirst();
}

/** Recover-since jobs that finished before the cutoff (a running one is never removed): a batch of them. */
export function pruneRecoveries(db: Kysely<Database>, dialect: Dialect, cutoff: number, limit: number) {
  return db
    .deleteFrom('recoveries')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('recoveries as old')
        .select('old.id')
        // Spelled as in the partial index recoveries_finished (SQLite matches the predicate by its terms).
        .where(sql<boolean>`old.status in ('done', 'failed')`)
        .where('old.finished_at', '<', cutoff)
        .orderBy('old.finished_at')
        .limit(limit)
        .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked()),
    )
    .executeTakeFirst();
}

/**
 * Deliveries that ended before the cutoff, with their attempts: first up to `limit` attempts of
 * them (oldest deliveries first; a delivery may lose its attempts over several batches, since a
 * policy may give it dozens), then up to `limit` ended deliveries left without attempts, each its
 * own statement.
 */
export async function pruneDeliveries(db: Kysely<Database>, dialect: Dialect, cutoff: number, limit: number) {
  const attempts = await db
    .deleteFrom('delivery_attempts')
    .where('id', 'in', () =>
      db
        .selectFrom('deliveries as old')
        .innerJoin('delivery_attempts as attempt', 'attempt.delivery_id', 'old.id')
        .select('attempt.id')
        // Spelled as in the partial index deliveries_finished (SQLite matches the predicate by its terms).
        .where(sql<boolean>`old.status in ('delivered', 'failed')`)
        .where('old.updated_at', '<', cutoff)
        .orderBy('old.updated_at')
        .limit(limit)
        .$if(dialect === 'postgres', (qb) => qb.forUpdate('attempt').skipLocked()),
    )
    .executeTakeFirst();
  const deliveries = await db
    .deleteFrom('deliveries')
    .where('id', 'in', () =>
      db
        .selectFrom('deliveries as old')
        .select('old.id')
        .where(sql<boolean>`old.status in ('delivered', 'failed')`)
        .where('old.updated_at', '<', cutoff)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('delivery_attempts as attempt')
                .select('attempt.id')
                .whereRef('attempt.delivery_id', '=', 'old.id'),
            ),
          ),
        )
        .orderBy('old.updated_at')
        .limit(limit)
        .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked()),
    )
    .executeTakeFirst();
  return { attempts, deliveries };
}
