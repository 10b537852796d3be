// Portico's floor, a "queue" of scripts/bench-peer-server.mjs (PEER_QUEUE=portico-floor): what a
// delivered event costs with the rows Portico writes for it and nothing else. The same tables,
// indexes and foreign keys (a database Portico made: scripts/bench-floor.mjs), the same durability
// (an event is on disk before it is acknowledged; engine writes are not waited for on SQLite), and
// the fewest statements those rows take. Since subscriptions are fanned out at ingest (decision
// 052), a webhook event's rows are:
//
//   ingest     the event and its delivery (synced before the answer)
//   attempt    signed and POSTed (scripts/bench-queue-worker.mjs, as the peers)
//   result     the attempt's log line and the delivery's new state
//
// On PostgreSQL each step is one statement, whatever the number of events (unnest). On SQLite
// steps queued in one turn of the event loop share a transaction, and ingests a sync of the log,
// as in Portico (storage/group-commit.ts, storage/durability.ts). No routing read, no framework:
// the floor is Portico's rows on node:http. There are no retries (a failed attempt is recorded and
// left pending); none fail in the benchmark.
import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { deliveryAttempt } from './bench-queue-worker.mjs';

/** The delivery Portico wrote last (the seeded event's), whose columns the floor's deliveries copy. */
const TEMPLATE = 'select * from deliveries order by created_at desc limit 1';

/**
 * Opens the floor on the Portico database at `sqliteFile` or `databaseUrl`: answers
 * `{ add(job), addMany(jobs), stop() }` as the peers' queues do; a job is `{ eventId, body }`.
 */
export async function openFloorQueue({ sqliteFile, databaseUrl, receiverUrl, secret, concurrency }) {
  const store = databaseUrl ? await postgresStore(databaseUrl) : await sqliteStore(sqliteFile);
  const deliver = deliveryAttempt({ url: receiverUrl, secret });
  let inFlight = 0;
  const waiting = [];

  const attempt = (delivery) => {
    if (inFlight >= concurrency) {
      waiting.push(delivery);
      return;
    }
    inFlight++;
    const started = Date.now();
    deliver({ eventId: delivery.eventId, body: delivery.body }, 1)
      .then(
        () => 200,
        () => 0,
      )
      .then((status) => {
        const now = Date.now();
        return store.result({
          id: delivery.id,
          lease: delivery.lease,
          at: now,
          status,
          durationMs: now - started,
          state: status === 200 ? 'delivered' : 'pending',
        });
      })
      .catch((error) => console.error(`floor: result of ${delivery.id}: ${error.message}`))
      .finally(() => {
        inFlight--;
        const next = waiting.shift();
        if (next) attempt(next);
      });
  };

  const addMany = async (jobs) => {
    const now = Date.now();
    const lease = now + 30_000;
    const rows = jobs.map((job) => ({
      event: {
        event_id: job.eventId,
        type: 'space_content_updated',
        payload: job.body,
        received_at: now,
        routed_at: now,
      },
      delivery: {
        ...store.template,
        id: `del_${randomBytes(12).toString('hex')}`,
        event_id: job.eventId,
        body: job.body,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        claimed_until: lease,
        last_error: null,
        created_at: now,
        updated_at: now,
      },
    }));
    const stored = await store.ingest(rows);
    for (const { delivery } of rows) {
      if (stored.has(delivery.event_id))
        attempt({ id: delivery.id, eventId: delivery.event_id, body: delivery.body, lease });
    }
  };
  return { add: (job) => addMany([job]), addMany, stop: () => store.close() };
}

/** SQLite: Portico's pragmas, group commit, and a sync of the log before an ingest is answered. */
async function sqliteStore(file) {
  const { default: SQLite } = await import('better-sqlite3');
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const log = await open(`${file}-wal`, 'r+');
  const template = db.prepare(TEMPLATE).get();
  const columns = Object.keys(template);
  const insertEvent = db.prepare(
    'insert into events (event_id, type, payload, received_at, routed_at) values (@event_id, @type, @payload, @received_at, @routed_at) on conflict (event_id) do nothing returning event_id',
  );
  const insertDelivery = db.prepare(
    `insert into deliveries (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
  );
  const insertAttempt = db.prepare(
    'insert into delivery_attempts (delivery_id, number, at, status, duration_ms, error, response_excerpt) values (?, 1, ?, ?, ?, null, null)',
  );
  const updateDelivery = db.prepare(
    'update deliveries set attempts = 1, status = ?, next_attempt_at = ?, claimed_until = null, updated_at = ? where id = ? and claimed_until = ?',
  );
  const begin = db.prepare('begin immediate');
  const commit = db.prepare('commit');

  // Group commit: what is queued in one turn runs in one transaction; ingests wait for a sync.
  let queue = [];
  let flushing = false;
  const flush = async () => {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const results = [];
      begin.run();
      try {
        for (const job of batch) results.push(job.work());
        commit.run();
      } catch (error) {
        db.exec('rollback');
        for (const job of batch) job.reject(error);
        continue;
      }
      if (batch.some((job) => job.synced)) await log.datasync();
      for (const [i, job] of batch.entries()) job.resolve(results[i]);
      await new Promise((resolve) => setImmediate(resolve));
    }
    flushing = false;
  };
  const write = (work, synced) =>
    new Promise((resolve, reject) => {
      queue.push({ work, synced, resolve, reject });
      if (!flushing) {
        flushing = true;
        setImmediate(flush);
      }
    });
  return {
    template,
    ingest: (rows) =>
      write(() => {
        const stored = new Set();
        for (const { event, delivery } of rows) {
          if (!insertEvent.get(event)) continue;
          insertDelivery.run(...columns.map((c) => delivery[c]));
          stored.add(event.event_id);
        }
        return stored;
      }, true),
    result: ({ id, lease, at, status, durationMs, state }) =>
      write(() => {
        insertAttempt.run(id, at, status, durationMs);
        updateDelivery.run(state, at + 1000, at, id, lease);
      }, false),
    close: async () => {
      while (flushing) await new Promise((resolve) => setTimeout(resolve, 10));
      await log.close();
      db.close();
    },
  };
}

/** PostgreSQL: one statement per step, each committed (and durable) on its own, as Portico's are. */
async function postgresStore(url) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', (error) => console.error(`floor pool: ${error.message}`));
  const template = (await pool.query(TEMPLATE)).rows[0];
  // Every column but the event's own, which each row sets.
  const shared = Object.keys(template).filter((c) => !['id', 'event_id', 'body'].includes(c));
  const ingest = {
    name: 'floor_ingest',
    text: `with e as (
        insert into events (event_id, type, payload, received_at, routed_at)
        select u.event_id, u.type, u.payload, $4::bigint, $4::bigint
          from unnest($1::text[], $2::text[], $3::text[]) as u (event_id, type, payload)
        on conflict (event_id) do nothing returning event_id, payload),
      d as (
        insert into deliveries (id, event_id, body, ${shared.join(', ')})
        select u.id, e.event_id, e.payload, ${shared.map((_, i) => `$${i + 6}`).join(', ')}
          from e join unnest($1::text[], $5::text[]) as u (event_id, id) on u.event_id = e.event_id)
      select event_id from e`,
  };
  const result = {
    name: 'floor_result',
    text: `with a as (
        insert into delivery_attempts (delivery_id, number, at, status, duration_ms, error, response_excerpt)
        values ($1, 1, $2, $3, $4, null, null))
      update deliveries set attempts = 1, status = $5, next_attempt_at = $6, claimed_until = null, updated_at = $2
       where id = $1 and claimed_until = $7`,
  };
  return {
    template,
    ingest: async (rows) => {
      const first = rows[0].delivery;
      const { rows: written } = await pool.query({
        ...ingest,
        values: [
          rows.map((r) => r.event.event_id),
          rows.map((r) => r.event.type),
          rows.map((r) => r.event.payload),
          first.created_at,
          rows.map((r) => r.delivery.id),
          ...shared.map((c) => first[c]),
        ],
      });
      return new Set(written.map((w) => w.event_id));
    },
    result: ({ id, lease, at, status, durationMs, state }) =>
      pool.query({ ...result, values: [id, at, status, durationMs, state, at + 1000, lease] }),
    close: () => pool.end(),
  };
}
