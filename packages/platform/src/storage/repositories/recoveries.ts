/**
 * The statements of recover-since jobs: the job's row (claimed with a lease), and the failed
 * deliveries it still owes a redelivery, written with the job's progress in one transaction.
 */
import { type Kysely, sql } from 'kysely';
import { LeaseLost } from '../../errors/lease-lost.js';
import type { Database } from '../schema.js';

type Row = Database['recoveries'];
type Dialect = 'sqlite' | 'postgres';

/** The failed deliveries of a job still to redeliver, after its cursor, in (created_at, id) order. */
function owed(db: Kysely<Database>, job: Row, limit: number) {
  return db
    .selectFrom('deliveries as d')
    .selectAll('d')
    .where('d.installation_id', '=', job.installation_id)
    .where('d.status', '=', 'failed')
    .where('d.created_at', '>=', job.since)
    .where('d.created_at', '<', job.until)
    .$if(job.cursor_created_at !== null, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('d.created_at', '>', job.cursor_created_at as number),
          eb.and([eb('d.created_at', '=', job.cursor_created_at as number), eb('d.id', '>', job.cursor_id as string)]),
        ]),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('deliveries as r').select('r.id').whereRef('r.redelivery_of', '=', 'd.id'))),
    )
    .orderBy('d.created_at')
    .orderBy('d.id')
    .limit(limit);
}

/** How many failed deliveries the job owes a redelivery in all. */
export function countOwed(db: Kysely<Database>, job: Row) {
  return db
    .selectFrom(owed(db, job, Number.MAX_SAFE_INTEGER).clearOrderBy().clearLimit().as('o'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
}

/** The next failed deliveries the job owes a redelivery. */
export function owedBatch(db: Kysely<Database>, job: Row, limit: number) {
  return owed(db, job, limit).execute();
}

export async function insertRecovery(db: Kysely<Database>, row: Row): Promise<void> {
  await db.insertInto('recoveries').values(row).execute();
}

export function recoveryById(db: Kysely<Database>, id: string) {
  return db.selectFrom('recoveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The installation's latest recoveries, newest first. */
export function latestRecoveries(db: Kysely<Database>, installationId: string, limit: number) {
  return db
    .selectFrom('recoveries')
    .selectAll()
    .where('installation_id', '=', installationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The oldest running job nobody holds, claimed with `lease`. */
export function claimRecovery(db: Kysely<Database>, dialect: Dialect, now: number, lease: number) {
  // One process owns a SQLite file: a claim it finds was left by a run that stopped.
  const free = db
    .selectFrom('recoveries')
    .select('id')
    // A literal, so any plan can use the index of running jobs (`recoveries_running`, partial).
    .where('status', '=', sql.lit<'running'>('running'))
    .$if(dialect === 'postgres', (qb) =>
      qb
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
        .forUpdate()
        .skipLocked(),
    )
    .orderBy('created_at')
    .limit(1);
  return db
    .updateTable('recoveries')
    .set({ claimed_until: lease, updated_at: now })
    .where('id', '=', free)
    .returningAll()
    .executeTakeFirst();
}

/** The installation, when it is not uninstalled (its id). */
export function installationLeft(db: Kysely<Database>, installationId: string) {
  return db
    .selectFrom('installations')
    .select('id')
    .where('id', '=', installationId)
    .where('uninstalled_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Writes a batch: the job's progress and cursor (only while this node holds its lease, else
 * LeaseLost: another node took it over, and its batches stand) and its redeliveries, in one transaction.
 */
export async function saveBatch(
  db: Kysely<Database>,
  current: Row,
  next: Row,
  redeliveries: Database['deliveries'][],
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('recoveries')
      .set({
        done: next.done,
        errors: next.errors,
        last_error: next.last_error,
        cursor_created_at: next.cursor_created_at,
        cursor_id: next.cursor_id,
        claimed_until: next.claimed_until,
        updated_at: now,
      })
      .where('id', '=', current.id)
      .where('claimed_until', '=', current.claimed_until)
      .executeTakeFirst();
    // Another node took the job over (this one stalled past its lease): its batches stand.
    if (Number(updated.numUpdatedRows) === 0) throw new LeaseLost(current.id);
    if (redeliveries.length > 0) await trx.insertInto('deliveries').values(redeliveries).execute();
  });
}

/** Ends a job (while this node holds it). */
export async function finishRecovery(
  db: Kysely<Database>,
  job: Row,
  status: 'done' | 'failed',
  error: string | undefined,
  now: number,
): Promise<void> {
  await db
    .updateTable('recoveries')
    .set({
      status,
      total: job.done + job.errors,
      ...(error !== undefined ? { last_error: error } : {}),
      claimed_until: null,
      updated_at: now,
      finished_at: now,
    })
    .where('id', '=', job.id)
    .where('claimed_until', '=', job.claimed_until)
    .execute();
}

/** Gives a job back (while this node holds it). */
export async function releaseRecovery(db: Kysely<Database>, job: Row): Promise<void> {
  await db
    .updateTable('recoveries')
    .set({ claimed_until: null })
    .where('id', '=', job.id)
    .where('claimed_until', '=', job.claimed_until)
    .execute();
}
