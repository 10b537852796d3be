/**
 * PostgreSQL statements prepared by name (database.ts): run many times on one connection, and
 * still answered after another node's migration has changed a table they read.
 */
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
});
