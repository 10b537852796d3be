/**
 * A row logged (a dispatch, a delivery attempt) and the row it belongs to updated, in the same
 * transaction: on PostgreSQL in one statement (the insert runs as a data-modifying CTE of the
 * update), a round trip less per event; on SQLite, where statements cost no trip and CTEs cannot
 * write, in two. The insert happens whatever the update finds: a caller that must not keep it
 * when the update matched nothing throws, which rolls both back (group-commit.ts).
 *
 * Each event runs this at least twice, so the statements are built once per shape (tables and
 * column names) and dialect, and afterwards only get their values: building and compiling them
 * with Kysely on every call was most of their cost (decision 024).
 */
import { CompiledQuery, type Insertable, type Transaction, type Updateable } from 'kysely';
import type { Database } from './schema.js';

type Table = keyof Database;
type Dialect = 'sqlite' | 'postgres';

/** A statement's SQL and, per parameter, which of the call's values it takes. */
interface Shape {
  statements: { sql: string; slots: number[] }[];
}
const shapes = new Map<string, Shape>();
const MAX_SHAPES = 100;
const marker = (i: number) => `\u0000portico-value-${i}\u0000`;

export async function insertThenUpdate<I extends Table, U extends Table>(
  trx: Transaction<Database>,
  dialect: Dialect,
  insert: { into: I; values: Insertable<Database[I]> },
  update: {
    table: U;
    set: Updateable<Database[U]>;
    /** Column = value conditions, all of which must hold (a null value matches no row). */
    where: Partial<Record<keyof Database[U] & string, string | number | null>>;
  },
): Promise<number> {
  // (Kysely leaves out properties whose value is undefined; so does the shape.)
  const defined = (o: object) => Object.entries(o).filter(([, value]) => value !== undefined);
  const values = defined(insert.values);
  const set = defined(update.set);
  const where = defined(update.where);
  const key = [
    dialect,
    insert.into,
    ...values.map(([c]) => c),
    update.table,
    ...set.map(([c]) => c),
    '',
    ...where.map(([c]) => c),
  ].join('\u0001');
  let shape = shapes.get(key);
  if (shape === undefined) {
    shape = build(trx, dialect, insert.into, values.length, update.table, set.length, where, key);
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, shape);
  }
  const all = [...values, ...set, ...where].map(([, value]) => value);
  let updated = 0;
  for (const { sql, slots } of shape.statements) {
    const result = await trx.executeQuery(
      CompiledQuery.raw(
        sql,
        slots.map((slot) => all[slot]),
      ),
    );
    updated = Number(result.numAffectedRows ?? 0);
  }
  // The last statement is the update: its count is the answer.
  return updated;
}

/** Builds the statements of a shape with a marker for each value, and finds where each value goes. */
function build(
  trx: Transaction<Database>,
  dialect: Dialect,
  into: Table,
  valueCount: number,
  table: Table,
  setCount: number,
  where: [string, unknown][],
  key: string,
): Shape {
  const columns = key.split('\u0001');
  const valueColumns = columns.slice(2, 2 + valueCount);
  const setColumns = columns.slice(3 + valueCount, 3 + valueCount + setCount);
  let n = 0;
  const values = Object.fromEntries(valueColumns.map((c) => [c, marker(n++)]));
  const set = Object.fromEntries(setColumns.map((c) => [c, marker(n++)]));
  const conditions = where.map(([c]) => [c, marker(n++)] as const);
  const total = n;
  const insertQuery = (qc: Transaction<Database>) => qc.insertInto(into).values(values as never);
  // (Kysely's types cannot follow a table chosen at run time; callers' shapes are checked by theirs.)
  const base = (
    dialect === 'postgres' ? trx.with('logged', (qc) => insertQuery(qc as never)) : trx
  ) as Transaction<Database>;
  let updateQuery = base.updateTable(table as 'outbox').set(set as never);
  // (`= null` matches nothing, as a lost lease should.)
  for (const [column, value] of conditions) updateQuery = updateQuery.where(column as 'id', '=', value as never);
  const compiled = [...(dialect === 'sqlite' ? [insertQuery(trx).compile()] : []), updateQuery.compile()];
  return {
    statements: compiled.map(({ sql, parameters }) => {
      const slots = parameters.map((p) => {
        const slot = typeof p === 'string' ? Array.from({ length: total }, (_, i) => marker(i)).indexOf(p) : -1;
        if (slot < 0 || sql.includes(p as string))
          throw new Error(`insertThenUpdate: a value is not a parameter in: ${sql}`);
        return slot;
      });
      return { sql, slots };
    }),
  };
}
