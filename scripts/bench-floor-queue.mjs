// Portico's floor, a "queue" of scripts/bench-peer-server.mjs (PEER_QUEUE=portico-floor): what a
// delivered event costs with the rows Portico writes for it and nothing else. The same tables,
// indexes and foreign keys (a database Portico made: scripts/bench-floor.mjs), the same durability
// (an event is on disk before it is acknowledged; engine writes are not waited for on SQLite), and
// the fewest statements those rows take:
//
//   ingest     the event and its outbox row (synced before the answer)
//   dispatch   the outbox row settled, its dispatch-log line, the delivery row
//   attempt    signed and POSTed (scripts/bench-queue-worker.mjs, as the peers)
//   result     the attempt's log line and the delivery's new state
//
// On PostgreSQL each step is one statement, whatever the number of events (unnest). On SQLite
// steps queued in one turn of the event loop share a transaction, and ingests a sync of the log,
// as in Portico (storage/group-commit.ts, storage/durability.ts). No routing read, no context
// read, no integration, no framework: the floor is Portico's rows on node:http. There are no
// retries (a failed attempt is recorded and left pending); none fail in the benchmark.
import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { deliveryAttempt } from './bench-queue-worker.mjs';

/** The rows Portico wrote last (the seeded event's), whose columns the floor's rows copy. */
const TEMPLATES = {
  outbox: 'select * from outbox order by id desc limit 1',
  dispatches: 'select * from dispatches order by id desc limit 1',
  deliveries: 'select * from deliveries order by created_at desc limit 1',
};

/**
 * Opens the floor on the Portico database at `sqliteFile` or `databaseUrl`: answers
 * `{ add(job), addMany(jobs), stop() }` as the peers' queues do; a job is `{ eventId, body }`.
 */
export async function openFloorQueue({ sqliteFile, databaseUrl, receiverUrl, secret, concurrency }) {
  const store = databaseUrl ? await postgresStore(databaseUrl) : await sqliteStore(sqliteFile);
  const deliver = deliveryAttempt({ url: receiverUrl, secret });
  const { outbox, dispatches, deliveries } = store.templates;
  const installationId = outbox.installation_id;
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

  const dispatch = (job, outboxId, outboxLease) => {
    const now = Date.now();
    const lease = now + 30_000;
    const id = `del_${randomBytes(12).toString('hex')}`;
    const line = { ...dispatches, event_id: job.eventId, at: now };
    delete line.id;
    const row = {
      ...deliveries,
      id,
      event_id: job.eventId,
      body: job.body,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      claimed_until: lease,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
    store
      .dispatch({ outboxId, outboxLease, at: now, line, row })
      .then(() => attempt({ id, eventId: job.eventId, body: job.body, lease }))
      .catch((error) => console.error(`floor: dispatch of ${job.eventId}: ${error.message}`));
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
      owed: {
        ...outbox,
        installation_id: installationId,
        event_id: job.eventId,
        event_type: 'space_content_updated',
        event: job.body,
        created_at: now,
        dispatched_at: null,
        claimed_until: lease,
        outcome: null,
        attempts: 0,
        available_at: 0,
      },
    }));
    const ids = await store.ingest(rows);
    for (const job of jobs) {
      const id = ids.get(job.eventId);
      if (id !== undefined) dispatch(job, id, lease);
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
  const templates = Object.fromEntries(Object.entries(TEMPLATES).map(([k, q]) => [k, db.prepare(q).get()]));
  const insert = (table, row, tail = '') => {
    const columns = Object.keys(row).filter((c) => c !== 'id' || table === 'deliveries');
    const statement = db.prepare(
      `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')}) ${tail}`,
    );
    return (values) => statement.get(...columns.map((c) => values[c]));
  };
  const insertEvent = db.prepare(
    'insert into events (event_id, type, payload, received_at, routed_at) values (@event_id, @type, @payload, @received_at, @routed_at) on conflict (event_id) do nothing returning event_id',
  );
  const insertOwed = insert('outbox', templates.outbox, 'returning id');
  const insertLine = insert('dispatches', templates.dispatches, 'returning id');
  const insertDelivery = insert(
    'deliveries',
    templates.deliveries,
    'on conflict (installation_id, event_id, url) where redelivery_of is null do nothing returning id',
  );
  const settle = db.prepare(
    "update outbox set dispatched_at = ?, outcome = 'delivered', claimed_until = null where id = ? and claimed_until = ?",
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
    templates,
    ingest: (rows) =>
      write(() => {
        const ids = new Map();
        for (const { event, owed } of rows) {
          if (!insertEvent.get(event)) continue;
          ids.set(event.event_id, insertOwed(owed).id);
        }
        return ids;
      }, true),
    dispatch: ({ outboxId, outboxLease, at, line, row }) =>
      write(() => {
        settle.run(at, outboxId, outboxLease);
        insertLine(line);
        insertDelivery(row);
      }, false),
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
  const templates = {};
  for (const [k, q] of Object.entries(TEMPLATES)) templates[k] = (await pool.query(q)).rows[0];
  const lineColumns = Object.keys(templates.dispatches).filter((c) => c !== 'id');
  const deliveryColumns = Object.keys(templates.deliveries);
  const places = (n, from) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(', ');
  const ingest = {
    name: 'floor_ingest',
    text: `with e as (
        insert into events (event_id, type, payload, received_at, routed_at)
        select u.event_id, u.type, u.payload, $4::bigint, $4::bigint
          from unnest($1::text[], $2::text[], $3::text[]) as u (event_id, type, payload)
        on conflict (event_id) do nothing returning event_id, type, payload)
      insert into outbox (installation_id, integration_name, event_id, event_type, event, created_at, claimed_until, attempts, available_at)
      select $5, $6, e.event_id, e.type, e.payload, $4, $7, 0, 0 from e returning id, event_id`,
  };
  const dispatch = {
    name: 'floor_dispatch',
    text: `with s as (
        update outbox set dispatched_at = $1, outcome = 'delivered', claimed_until = null
         where id = $2 and claimed_until = $3 returning id),
      l as (insert into dispatches (${lineColumns.join(', ')}) values (${places(lineColumns.length, 4)}))
      insert into deliveries (${deliveryColumns.join(', ')}) values (${places(deliveryColumns.length, 4 + lineColumns.length)})
      on conflict (installation_id, event_id, url) where redelivery_of is null do nothing returning id`,
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
    templates,
    ingest: async (rows) => {
      const first = rows[0].owed;
      const { rows: written } = await pool.query({
        ...ingest,
        values: [
          rows.map((r) => r.event.event_id),
          rows.map((r) => r.event.type),
          rows.map((r) => r.event.payload),
          first.created_at,
          first.installation_id,
          first.integration_name,
          first.claimed_until,
        ],
      });
      return new Map(written.map((w) => [w.event_id, Number(w.id)]));
    },
    dispatch: ({ outboxId, outboxLease, at, line, row }) =>
      pool.query({
        ...dispatch,
        values: [at, outboxId, outboxLease, ...lineColumns.map((c) => line[c]), ...deliveryColumns.map((c) => row[c])],
      }),
    result: ({ id, lease, at, status, durationMs, state }) =>
      pool.query({ ...result, values: [id, at, status, durationMs, state, at + 1000, lease] }),
    close: () => pool.end(),
  };
}
