/**
 * A row logged (a dispatch, a delivery attempt) and the row it belongs to updated, in the same
 * transaction: on PostgreSQL in one statement (the insert runs as a data-modifying CTE of the
 * update), a round trip less per event; on SQLite, where statements cost no trip and CTEs cannot
 * write, in two. The insert happens whatever the update finds: a caller that must not keep it
 * when the update matched nothing throws, which rolls both back (group-commit.ts).
 */
import type { Insertable, Transaction, Updateable } from 'kysely';
import type { Database } from './schema.js';

type Table = keyof Database;

export async function insertThenUpdate<I extends Table, U extends Table>(
  trx: Transaction<Database>,
  dialect: 'sqlite' | 'postgres',
  insert: { into: I; values: Insertable<Database[I]> },
  update: {
    table: U;
    set: Updateable<Database[U]>;
    /** Column = value conditions, all of which must hold (a null value matches no row). */
    where: Partial<Record<keyof Database[U] & string, string | number | null>>;
  },
): Promise<number> {
  const conditions = Object.entries(update.where) as [string, string | number | null][];
  if (dialect === 'sqlite') {
    await trx
      .insertInto(insert.into)
      .values(insert.values as never)
      .execute();
  }
  // (Kysely's types cannot follow a table chosen by a type parameter; the shapes are checked above.)
  const query = (dialect === 'postgres'
    ? trx.with('logged', (qc) => qc.insertInto(insert.into).values(insert.values as never))
    : trx) as unknown as Transaction<Database>;
  let statement = query.updateTable(update.table as 'outbox').set(update.set as never);
  // (`= null` matches nothing, as a lost lease should.)
  for (const [column, value] of conditions) statement = statement.where(column as 'id', '=', value as never);
  const result = await statement.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
