/**
 * The statements of delivery endpoints: one installation's URL and its health. Health updates run
 * inside the attempt's transaction.
 */
import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';
import { PENDING } from './delivery-queue.js';

// Read for every delivery asked for: built once (storage/prepared.ts), never cached as an answer,
// so an endpoint disabled or enabled on any node counts at once.
export const endpointByUrl = prepared((db, installationId: string, url: string) =>
  db
    .selectFrom('endpoints')
    .select(['id', 'destination', 'disabled_at', 'disabled_reason'])
    .where('installation_id', '=', installationId)
    .where('url', '=', url)
    .where('removed_at', 'is', null)
    // The live subscription of the URL first, else its plain endpoint.
    .orderBy('subscribed', 'desc'),
);

// The same read with the installation's valid signing secrets (a row per secret, newest first):
// a delivery asked for and started at once signs its first attempt with them (one read, not two).
// A delivery asked for during a dispatch takes both from the dispatch context's read instead
// (dispatch-context.ts); this read serves the API's other callers and URLs new to the installation.
export const endpointAndSecrets = prepared((db, installationId: string, url: string, now: number) =>
  db
    .selectFrom('endpoints as e')
    .leftJoin('signing_secrets as s', (join) =>
      join
        .onRef('s.installation_id', '=', 'e.installation_id')
        .on((eb) => eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', now)])),
    )
    .select(['e.id', 'e.destination', 'e.disabled_at', 'e.disabled_reason', 's.secret'])
    .where('e.installation_id', '=', installationId)
    .where('e.url', '=', url)
    .where('e.removed_at', 'is', null)
    .orderBy('e.subscribed', 'desc')
    .orderBy('s.id', 'desc'),
);

/** One endpoint by id (a delivery's: redeliveries go to its URL as it is now). */
export function endpointById(db: Kysely<Database>, id: string) {
  return db.selectFrom('endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Adds the endpoint unless another request added it first. */
export async function insertEndpoint(db: Kysely<Database>, row: Insertable<Database['endpoints']>): Promise<void> {
  await db
    .insertInto('endpoints')
    .values(row)
    // (The plain endpoints' unique index: one per URL and installation.)
    .onConflict((oc) => oc.columns(['installation_id', 'url']).where('subscribed', '=', sql.lit(0)).doNothing())
    .execute();
}

/*
 * The two health updates commute: whichever of a success and a failure ended last, by the time
 * each attempt ended, decides the health, in whatever order their transactions commit (they may
 * commit side by side on PostgreSQL, or on two nodes). A success counts unless a later failure
 * was already written, a failure unless a later success was; on a tie the success counts. (In an
 * UPDATE every expression reads the row as it was before it.)
 */

/**
 * A success: the failures are forgotten, unless one ended after it. Answers the endpoint's
 * disabled reason (none when enabled).
 */
export async function recordSuccess(trx: Transaction<Database>, endpointId: string, at: number) {
  const current = sql<boolean>`(last_failure_at is null or last_failure_at <= ${at})`;
  return trx
    .updateTable('endpoints')
    .set({
      consecutive_failures: sql<number>`case when ${current} then 0 else consecutive_failures end`,
      failing_since: sql<number | null>`case when ${current} then null else failing_since end`,
      last_success_at: sql<number>`case when last_success_at is null or last_success_at < ${at} then ${at} else last_success_at end`,
      updated_at: at,
    })
    .where('id', '=', endpointId)
    .returning(['disabled_reason', 'consecutive_failures'])
    .executeTakeFirst();
}

/**
 * A failure: counted, and when the failing began remembered, unless a success ended after it
 * (then it is only the newest failure, if it is).
 */
export function recordFailure(trx: Transaction<Database>, endpointId: string, at: number, error: string) {
  const current = sql<boolean>`(last_success_at is null or last_success_at < ${at})`;
  const newest = sql<boolean>`(last_failure_at is null or last_failure_at < ${at})`;
  return trx
    .updateTable('endpoints')
    .set({
      consecutive_failures: sql<number>`case when ${current} then consecutive_failures + 1 else consecutive_failures end`,
      failing_since: sql<
        number | null
      >`case when ${current} then coalesce(failing_since, ${at}) else failing_since end`,
      last_failure_at: sql<number>`case when ${newest} then ${at} else last_failure_at end`,
      last_error: sql<string>`case when ${newest} then ${error} else last_error end`,
      updated_at: at,
    })
    .where('id', '=', endpointId)
    .returning(['url', 'failing_since', 'consecutive_failures', 'disabled_at', 'disabled_reason'])
    .executeTakeFirst();
}

export async function disable(trx: Transaction<Database>, endpointId: string, reason: string, at: number) {
  await trx
    .updateTable('endpoints')
    .set({ disabled_at: at, disabled_reason: reason })
    .where('id', '=', endpointId)
    .execute();
}

/**
 * What a disabled endpoint is still owed ends failed with the reason: every first attempt and
 * every retry no node holds. Answers their ids.
 */
export async function failOwed(
  trx: Transaction<Database>,
  endpointId: string,
  reason: string,
  at: number,
): Promise<string[]> {
  const ended = await trx
    .updateTable('deliveries')
    .set({ status: 'failed', next_attempt_at: null, last_error: reason, updated_at: at })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', PENDING)
    .where((eb) => eb.or([eb('attempts', '=', 0), eb('claimed_until', 'is', null), eb('claimed_until', '<', at)]))
    .returning('id')
    .execute();
  return ended.map((row) => row.id);
}

/** The endpoint's failures in a row, as they are before an update. */
export async function failuresOf(trx: Transaction<Database>, endpointId: string): Promise<number | undefined> {
  const row = await trx
    .selectFrom('endpoints')
    .select('consecutive_failures')
    .where('id', '=', endpointId)
    .executeTakeFirst();
  return row?.consecutive_failures;
}

/** The installation's endpoints but removed subscriptions: its subscriptions (the configuration's first), then the others, oldest first. */
export function endpointsOf(db: Kysely<Database>, installationId: string) {
  return db
    .selectFrom('endpoints')
    .selectAll()
    .where('installation_id', '=', installationId)
    .where('removed_at', 'is', null)
    .orderBy('subscribed', 'desc')
    .orderBy('from_configuration', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Enables a disabled endpoint of the installation; answers it (undefined when there is none). */
export function enable(db: Kysely<Database>, installationId: string, id: string, now: number) {
  return db
    .updateTable('endpoints')
    .set({
      disabled_at: null,
      disabled_reason: null,
      consecutive_failures: 0,
      failing_since: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('installation_id', '=', installationId)
    .returningAll()
    .executeTakeFirst();
}

/** The installation's disabled endpoints. */
export function disabledOf(db: Kysely<Database>, installationId: string) {
  return db
    .selectFrom('endpoints')
    .select(['id', 'url', 'disabled_at', 'disabled_reason'])
    .where('installation_id', '=', installationId)
    .where('disabled_at', 'is not', null)
    .execute();
}

/** The endpoints with a rate limit (a partial index holds them): the delivery engine paces their attempts. */
export function rateLimited(db: Kysely<Database>) {
  return db
    .selectFrom('endpoints')
    .select(['id', 'rate_limit'])
    .where('rate_limit', 'is not', null)
    .where('removed_at', 'is', null)
    .execute();
}
