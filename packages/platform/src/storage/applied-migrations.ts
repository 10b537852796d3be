/** The ids of the migrations applied to a database (`portico_migrations`, written by migrate.ts). */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

export async function appliedMigrationIds(db: Kysely<Database>): Promise<Set<number>> {
  const result = await sql<{ id: number | string }>`select id from portico_migrations`.execute(db);
  return new Set(result.rows.map((row) => Number(row.id)));
}
