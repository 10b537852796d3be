/**
 * Numbered SQL migrations (`migrations/<dialect>/NNN_name.sql`), applied at start, each in its
 * own transaction together with its row in `portico_migrations`. Idempotent: an applied
 * migration is skipped. On PostgreSQL an advisory lock makes nodes that start at once take
 * turns, so each migration is applied exactly once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { OpenDatabase } from './database.js';

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

/** An arbitrary constant shared by every Portico node: the key of the migration lock. */
const MIGRATION_LOCK_KEY = 7_461_011;

export function loadMigrations(dialect: OpenDatabase['dialect']): Migration[] {
  const dir = new URL(`../../migrations/${dialect}/`, import.meta.url);
  return readdirSync(dir)
    .filter((file) => /^\d{3}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      id: Number(file.slice(0, 3)),
      name: file.replace(/\.sql$/, ''),
      sql: readFileSync(new URL(file, dir), 'utf8'),
    }));
}

/** Applies the migrations not applied yet; answers the names it applied. */
export async function migrate(
  database: OpenDatabase,
  migrations = loadMigrations(database.dialect),
): Promise<string[]> {
  const applied: string[] = [];
  if (database.dialect === 'postgres') {
    await database.db.connection().execute(async (connection) => {
      await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
      try {
        await sql`create table if not exists portico_migrations (id integer primary key, name text not null, applied_at bigint not null)`.execute(
          connection,
        );
        for (const migration of migrations) {
          const done = await sql<{ id: number }>`select id from portico_migrations where id = ${migration.id}`.execute(
            connection,
          );
          if (done.rows.length > 0) continue;
          await sql`begin`.execute(connection);
          try {
            await sql.raw(migration.sql).execute(connection);
            await sql`insert into portico_migrations (id, name, applied_at) values (${migration.id}, ${migration.name}, ${Date.now()})`.execute(
              connection,
            );
            await sql`commit`.execute(connection);
          } catch (error) {
            await sql`rollback`.execute(connection);
            throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
          }
          applied.push(migration.name);
        }
      } finally {
        await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
      }
    });
    return applied;
  }

  const sqlite = database.sqlite;
  if (sqlite === undefined) throw new Error('migrate: a SQLite database without its connection');
  sqlite.exec(
    'create table if not exists portico_migrations (id integer primary key, name text not null, applied_at integer not null)',
  );
  const isApplied = sqlite.prepare('select id from portico_migrations where id = ?');
  const record = sqlite.prepare('insert into portico_migrations (id, name, applied_at) values (?, ?, ?)');
  // Synchronous from BEGIN IMMEDIATE to COMMIT: nothing interleaves, and other processes on the
  // same file wait for the write lock (busy_timeout) and then see the migration applied.
  const apply = sqlite.transaction((migration: Migration) => {
    if (isApplied.get(migration.id) !== undefined) return false;
    sqlite.exec(migration.sql);
    record.run(migration.id, migration.name, Date.now());
    return true;
  });
  for (const migration of migrations) {
    try {
      if (apply.immediate(migration)) applied.push(migration.name);
    } catch (error) {
      throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
    }
  }
  return applied;
}
