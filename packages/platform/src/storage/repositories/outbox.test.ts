/**
 * Settling claimed outbox rows together (`settleOwned`), on SQLite and PostgreSQL: each row gets its
 * own new state and dispatch-log line, in the order given; a row whose lease moved on is left as it
 * is, without a line, and named in the answer.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, migratedDatabaseFor } from '../../test-support/backends.js';
import { seedInstallation } from '../../test-support/seed-installation.js';
import type { Database } from '../schema.js';
import { type OutboxRow, type Settled, settleOwned } from './outbox.js';

describe.each(backends)('settleOwned on $name', (backend) => {
  const database = migratedDatabaseFor(backend, [{ id: 'acme', title: 'Acme', created_at: 1 }]);
  const LEASE = 5_000;

  beforeAll(() => database.db.transaction().execute(seedInstallation));

  const owe = (eventId: string, claimedUntil: number) =>
    database.db
      .insertInto('outbox')
      .values({
        installation_id: 'inst',
        integration_name: 'hooks',
        event_id: eventId,
        event_type: 'space_content_updated',
        event: '{}',
        created_at: 1,
        claimed_until: claimedUntil,
        dispatched_at: null,
        outcome: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  const line = (eventId: string, status: number): Settled['record'] => ({
    installation_id: 'inst',
    event_id: eventId,
    event_type: 'space_content_updated',
    host: 'in-process',
    status,
    duration_ms: 3,
    error: null,
    logs: '["hello"]',
    at: 100,
  });

  it('writes each row its outcome and log line in order, and leaves a row whose lease moved on', async () => {
    const rows: OutboxRow[] = [];
    for (const id of ['e1', 'e2', 'e3', 'e4']) rows.push(await owe(id, LEASE));
    // Another node took e3 meanwhile: its lease is no longer the one this node holds.
    await database.db
      .updateTable('outbox')
      .set({ claimed_until: LEASE + 1 })
      .where('event_id', '=', 'e3')
      .execute();
    const [e1, e2, e3, e4] = rows as [OutboxRow, OutboxRow, OutboxRow, OutboxRow];
    const lost = await database.db.transaction().execute((trx) =>
      settleOwned(trx, database.dialect, [
        { row: e2, outcome: 'delivered', dispatched_at: 100, attempts: 0, available_at: 0, record: line('e2', 204) },
        {
          row: e1,
          outcome: 'retrying: 500 no',
          dispatched_at: null,
          attempts: 1,
          available_at: 1100,
          record: line('e1', 500),
        },
        { row: e3, outcome: 'delivered', dispatched_at: 100, attempts: 0, available_at: 0, record: line('e3', 204) },
        // Gone before its turn: no integration called, no line.
        { row: e4, outcome: 'skipped: uninstalled', dispatched_at: 100, attempts: 0, available_at: 0 },
      ]),
    );
    expect([...lost]).toEqual([e3.id]);
    const outbox = await database.db
      .selectFrom('outbox')
      .select(['event_id', 'outcome', 'dispatched_at', 'attempts', 'available_at', 'claimed_until'])
      .orderBy('event_id')
      .execute();
    expect(outbox).toEqual([
      {
        event_id: 'e1',
        outcome: 'retrying: 500 no',
        dispatched_at: null,
        attempts: 1,
        available_at: 1100,
        claimed_until: null,
      },
      { event_id: 'e2', outcome: 'delivered', dispatched_at: 100, attempts: 0, available_at: 0, claimed_until: null },
      { event_id: 'e3', outcome: null, dispatched_at: null, attempts: 0, available_at: 0, claimed_until: LEASE + 1 },
      {
        event_id: 'e4',
        outcome: 'skipped: uninstalled',
        dispatched_at: 100,
        attempts: 0,
        available_at: 0,
        claimed_until: null,
      },
    ]);
    const lines = await database.db
      .selectFrom('dispatches')
      .select(['event_id', 'status', 'logs', 'skipped'] satisfies (keyof Database['dispatches'])[])
      .orderBy('id')
      .execute();
    expect(lines).toEqual([
      { event_id: 'e2', status: 204, logs: '["hello"]', skipped: null },
      { event_id: 'e1', status: 500, logs: '["hello"]', skipped: null },
    ]);
  });

  it('writes nothing for no rows', async () => {
    const lost = await database.db.transaction().execute((trx) => settleOwned(trx, database.dialect, []));
    expect(lost.size).toBe(0);
  });

  // PostgreSQL would keep one plan for a statement prepared by name, made while the table was new
  // (a scan of the whole outbox for every settle, as it grew): this one is planned at each run.
  it.runIf(backend.name === 'postgres')('is planned at each run, not prepared by name', async () => {
    const e5: OutboxRow = await owe('e5', LEASE);
    const prepared = await database.db.transaction().execute(async (trx) => {
      // Another statement with parameters, on the same connection, which is prepared by name.
      await trx.selectFrom('outbox').select('id').where('id', '=', e5.id).execute();
      await settleOwned(trx, database.dialect, [
        { row: e5, outcome: 'delivered', dispatched_at: 100, attempts: 0, available_at: 0 },
      ]);
      const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(trx);
      return rows.map((row) => row.statement);
    });
    expect(prepared.some((text) => text.includes('from "outbox" where "id" ='))).toBe(true);
    expect(prepared.some((text) => text.includes('update outbox o set dispatched_at'))).toBe(false);
  });
});
