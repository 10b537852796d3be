import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { openDatabase } from './database.js';
import { loadMigrations, migrate } from './migrate.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe.each(backends)('migrations on $name', (backend) => {
  async function fresh(connections = 1) {
    const { config, cleanup } = await backend.fresh();
    const databases = Array.from({ length: connections }, () =>
      openDatabase({ url: config.databaseUrl, sqliteFile: `${config.dataDir}/portico.db` }),
    );
    cleanups.push(async () => {
      for (const database of databases) await database.close();
      await cleanup();
    });
    return databases;
  }

  it('are numbered and apply in order, once: a second run applies nothing', async () => {
    const [database] = await fresh();
    if (database === undefined) throw new Error('no database');
    const migrations = loadMigrations(database.dialect);
    // Numbered from 1, each number once, in order (a number may be missing while it is being written).
    const ids = migrations.map((m) => m.id);
    expect(ids[0]).toBe(1);
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
    expect(await migrate(database)).toEqual(migrations.map((m) => m.name));
    expect(await migrate(database)).toEqual([]);
    const rows = await sql<{ name: string }>`select name from portico_migrations order by id`.execute(database.db);
    expect(rows.rows.map((r) => r.name)).toEqual(migrations.map((m) => m.name));
  });

  it('run at once on three connections, apply each migration exactly once', async () => {
    const databases = await fresh(3);
    const results = await Promise.all(databases.map((database) => migrate(database)));
    expect(results.flat().sort()).toEqual(
      loadMigrations(backend.name)
        .map((m) => m.name)
        .sort(),
    );
  });

  it('roll a failing migration back whole and name it', async () => {
    const [database] = await fresh();
    if (database === undefined) throw new Error('no database');
    const broken = [
      { id: 1, name: '001_broken', sql: 'create table half_done (id integer); create table half_done (id integer);' },
    ];
    await expect(migrate(database, broken)).rejects.toThrow(/migration 001_broken failed/);
    const tables =
      database.dialect === 'sqlite'
        ? await sql<{ name: string }>`select name from sqlite_master where name = 'half_done'`.execute(database.db)
        : await sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_name = 'half_done'`.execute(
            database.db,
          );
    expect(tables.rows).toEqual([]);
    expect(await migrate(database)).toHaveLength(loadMigrations(database.dialect).length);
  });
});
