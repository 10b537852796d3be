/**
 * Reads kept until their tables change (kept-reads.ts), on a real SQLite file: kept while nothing
 * they read is written; read again after a write naming one of their tables (outside a
 * transaction, or in one once it began), after another connection's commit, after their time,
 * and with a clock set back. Reads made during a transaction are never kept. On PostgreSQL
 * nothing is kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { type OpenDatabase, OTHER_COMMITS_LOOK_MS, openDatabase } from './database.js';
import { keptRead, namesWritten } from './kept-reads.js';
import { migrate } from './migrate.js';
import { prepared } from './prepared.js';

describe('reads kept until their tables change, on SQLite', () => {
  let dir: string;
  let database: OpenDatabase;
  let reads: number;
  const titles = keptRead<string[]>(['organizations']);
  // (Prepared, as the reads kept in the server are: during a transaction they run beside it.)
  const allTitles = prepared((db) => db.selectFrom('organizations').select('title').orderBy('id'));
  /** The organizations' titles, counting the reads that reached the database. */
  const read = (now = 1000, until = Number.POSITIVE_INFINITY) =>
    titles(database.db, 'all', now, async () => {
      reads++;
      const rows = await allTitles.all(database.db);
      return { value: rows.map((row) => row.title), until };
    });
  const organization = (id: string) => ({ id, title: id.toUpperCase(), subdomain: null, created_at: 1 });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portico-kept-'));
    database = openDatabase({ sqliteFile: join(dir, 'portico.db') });
    await migrate(database);
    await database.db.insertInto('organizations').values(organization('acme')).execute();
    reads = 0;
  });
  afterEach(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a read while nothing it reads is written, and reads again after a write naming its table', async () => {
    expect(await read()).toEqual(['ACME']);
    expect(await read()).toEqual(['ACME']);
    expect(reads).toBe(1);
    // A write of another table leaves it kept.
    await database.db
      .insertInto('events')
      .values({ event_id: 'e1', type: 'space_content_updated', payload: '{}', received_at: 1, routed_at: 1 })
      .execute();
    expect(await read()).toEqual(['ACME']);
    expect(reads).toBe(1);
    await database.db.insertInto('organizations').values(organization('beta')).execute();
    expect(await read()).toEqual(['ACME', 'BETA']);
    expect(reads).toBe(2);
  });

  it('never keeps a read made while a transaction is open, and reads again once it committed', async () => {
    expect(await read()).toEqual(['ACME']);
    await database.db.transaction().execute(async (trx) => {
      await trx.insertInto('organizations').values(organization('beta')).execute();
      // Not yet committed: the read sees the last commit, and is not kept.
      expect(await read()).toEqual(['ACME']);
      expect(await read()).toEqual(['ACME']);
    });
    expect(reads).toBe(3);
    expect(await read()).toEqual(['ACME', 'BETA']);
    expect(await read()).toEqual(['ACME', 'BETA']);
    expect(reads).toBe(4);
  });

  it('reads again after another connection committed a change, once it looks again', async () => {
    expect(await read()).toEqual(['ACME']);
    const other = new SQLite(join(dir, 'portico.db'));
    other.prepare("update organizations set title = 'Acme Inc' where id = 'acme'").run();
    other.close();
    // Seen once this node looks for other connections' commits again, within OTHER_COMMITS_LOOK_MS.
    await new Promise((resolve) => setTimeout(resolve, OTHER_COMMITS_LOOK_MS + 10));
    expect(await read()).toEqual(['Acme Inc']);
    expect(reads).toBe(2);
  });

  it('reads again once its time is over, and when the clock was set back', async () => {
    await read(1000, 5000);
    await read(4999, 5000);
    expect(reads).toBe(1);
    await read(5000, 9000);
    expect(reads).toBe(2);
    await read(4000, 9000);
    expect(reads).toBe(3);
  });

  it('counts a change of the schema as a write of every table', () => {
    expect(namesWritten('ALTER TABLE users ADD COLUMN x text')).toEqual(['*']);
    expect(namesWritten('update "endpoints" set "url" = ? where "id" = ?')).toEqual([
      'update',
      'endpoints',
      'set',
      'url',
      'where',
      'id',
    ]);
  });
});

const postgres = backends.find((b) => b.name === 'postgres');

describe.skipIf(!postgres)('reads on PostgreSQL', () => {
  it('are never kept: other nodes write', async () => {
    const fresh = await (postgres as NonNullable<typeof postgres>).fresh();
    const database = openDatabase({ url: fresh.config.databaseUrl, sqliteFile: `${fresh.config.dataDir}/portico.db` });
    try {
      await migrate(database);
      let reads = 0;
      const kept = keptRead<number>(['organizations']);
      for (let i = 0; i < 3; i++) await kept(database.db, 'k', 1000, async () => ({ value: ++reads, until: Infinity }));
      expect(reads).toBe(3);
    } finally {
      await database.close();
      await fresh.cleanup();
    }
  });
});
