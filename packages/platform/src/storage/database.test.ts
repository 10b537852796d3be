/**
 * PostgreSQL statements prepared by name (database.ts): run many times on one connection, and
 * still answered after another node's migration has changed a table they read. A connection that
 * breaks while it is held fails its next statement and leaves the pool working. Idle connections
 * are kept, with what was prepared on them.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { type OpenDatabase, openDatabase } from './database.js';
import { migrate } from './migrate.js';

const postgres = backends.find((b) => b.name === 'postgres');

describe.skipIf(!postgres)('prepared statements on PostgreSQL', () => {
  let database: OpenDatabase;
  let url: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await (postgres as NonNullable<typeof postgres>).fresh();
    cleanup = fresh.cleanup;
    url = fresh.config.databaseUrl as string;
    database = openDatabase({ url, sqliteFile: `${fresh.config.dataDir}/portico.db` });
    await migrate(database);
    await database.db
      .insertInto('organizations')
      .values({ id: 'acme', title: 'Acme', subdomain: null, created_at: 1 })
      .execute();
  });
  afterAll(async () => {
    await database?.close();
    await cleanup?.();
  });

  const read = () => database.db.selectFrom('organizations').selectAll().where('id', '=', 'acme').executeTakeFirst();

  it('keeps answering a prepared `select *` after another connection adds a column to its table', async () => {
    // The pool's connections have prepared the statement.
    await Promise.all(Array.from({ length: 4 }, read));
    expect(await read()).toMatchObject({ id: 'acme', title: 'Acme' });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query('alter table organizations add column added_later text');
    await other.end();
    const after = await Promise.all(Array.from({ length: 4 }, read));
    expect(after).toEqual(
      Array(4).fill({ id: 'acme', title: 'Acme', subdomain: null, created_at: 1, added_later: null }),
    );
  });

  it('keeps its connections, and the statements prepared on them, while they idle', async () => {
    const pids = async () => {
      // Four statements at once hold four connections of the pool.
      const rows = await Promise.all(
        Array.from({ length: 4 }, () =>
          database.db.transaction().execute(async (trx) => {
            const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
            await sql`select pg_sleep(0.05)`.execute(trx);
            return rows[0]?.pid;
          }),
        ),
      );
      return new Set(rows);
    };
    const before = await pids();
    expect(before.size).toBe(4);
    // Past pg's default idle timeout (10 s), after which it would have closed them.
    await new Promise((resolve) => setTimeout(resolve, 10_500));
    expect(database.poolUse?.().total).toBe(4);
    expect(await pids()).toEqual(before);
  }, 20_000);

  it('fails the next statement on a connection ended while held, and goes on with a new one', async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const failed = await database.db.connection().execute(async (connection) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection);
        await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
        // The connection learns it was ended while nothing runs on it.
        await new Promise((resolve) => setTimeout(resolve, 200));
        return sql`select 1`.execute(connection).then(
          () => undefined,
          (error: Error) => error,
        );
      });
      expect(failed?.message).toMatch(/terminat|not queryable/i);
      expect(await read()).toMatchObject({ id: 'acme' });
    } finally {
      await admin.end();
    }
  });
});
