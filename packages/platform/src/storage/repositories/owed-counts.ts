/**
 * What the pipeline owes, counted for `/metrics` when it is scraped (never per event): one count
 * per question, each over a partial index (`outbox_owed`, `events_unrouted`, `deliveries_due`) or
 * a small table (endpoints).
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';
import { PENDING } from './delivery-queue.js';

/** Outbox rows not dispatched yet (on any node). */
export async function owedDispatches(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('dispatched_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Events stored but not routed yet (stored while no dispatcher ran). */
export async function unroutedEvents(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('routed_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Pending deliveries: waiting for their first attempt, and with a retry scheduled. */
export async function pendingDeliveries(db: Kysely<Database>): Promise<{ first: number; retry: number }> {
  const row = await db
    .selectFrom('deliveries')
    .select([
      (eb) => eb.fn.countAll().as('pending'),
      sql<number | string | null>`sum(case when attempts > 0 then 1 else 0 end)`.as('retry'),
    ])
    .where('status', '=', PENDING)
    .executeTakeFirstOrThrow();
  const retry = Number(row.retry ?? 0);
  return { first: Number(row.pending) - retry, retry };
}

/** Endpoints by health: as `EndpointView.state` says: `disabled`, else `failing` while failures run, else `healthy`. */
export async function endpointsByHealth(
  db: Kysely<Database>,
): Promise<{ healthy: number; failing: number; disabled: number }> {
  const row = await db
    .selectFrom('endpoints')
    .select([
      (eb) => eb.fn.countAll().as('total'),
      sql<number | string | null>`sum(case when disabled_at is not null then 1 else 0 end)`.as('disabled'),
      sql<
        number | string | null
      >`sum(case when disabled_at is null and failing_since is not null then 1 else 0 end)`.as('failing'),
    ])
    .executeTakeFirstOrThrow();
  const disabled = Number(row.disabled ?? 0);
  const failing = Number(row.failing ?? 0);
  return { healthy: Number(row.total) - disabled - failing, failing, disabled };
}

/**
 * The endpoints (not disabled) with the most failed attempts in a row, at most `limit`, most first:
 * which endpoints fail, for the metrics, without a series per endpoint.
 */
export async function topFailingEndpoints(
  db: Kysely<Database>,
  limit: number,
): Promise<{ id: string; installation_id: string; consecutive_failures: number }[]> {
  return db
    .selectFrom('endpoints')
    .select(['id', 'installation_id', 'consecutive_failures'])
    .where('consecutive_failures', '>', 0)
    .where('disabled_at', 'is', null)
    .orderBy('consecutive_failures', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}
