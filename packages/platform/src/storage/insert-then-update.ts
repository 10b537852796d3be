/**
 * A row logged (a dispatch, a delivery attempt) and the row it belongs to updated, in the same
 * transaction: on PostgreSQL in one statement (the update runs as a data-modifying CTE of the
 * insert, which is made only when the update matched a row), a round trip less per event, and a
 * write that needs no transaction (group-commit.ts, `standalone`); on SQLite, where statements
 * cost no trip and CTEs cannot write, in two, and the insert is made whatever the update finds.
 * Answers 0 when the update matched nothing: the caller then throws, which on SQLite rolls the
 * insert back (group-commit.ts), so neither back end keeps it.
 *
 * Each event runs this at least twice, so the statements are built once per shape (tables and
 * column names) and dialect, and afterwards only get their values: building and compiling them
 * with Kysely on every call was most of their cost (decision 024).
 */
import { CompiledQuery, type Insertable, sql, type Transaction, type Updateable } from 'kysely';
import type { Database } from './schema.js';

type Table = keyof Database;
type Dialect = 'sqlite' | 'postgres';

/** A statement's SQL and, per parameter, which of the call's values it takes. */
interface Shape {
  statements: { sql: string; slots: number[] }[];
}
const shapes = new Map<string, Shape>();
const MAX_SHAPES = 100;

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
  const columns: Columns = { values: names(values), set: names(set), where: names(where) };
  const key = `${dialect} ${insert.into} ${update.table} ${JSON.stringify(columns)}`;
  let shape = shapes.get(key);
  if (shape === undefined) {
    shape = build(trx, dialect, insert.into, update.table, columns);
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, shape);
  }
  // Values in the order of the markers: the insert's, the update's, its conditions'.
  const all = [...values, ...set, ...where].map(([, value]) => value);
  let updated = 0;
  for (const { sql, slots } of shape.statements) {
    const result = await trx.executeQuery(
      CompiledQuery.raw(
        sql,
        slots.map((slot) => all[slot]),
      ),
    );
    // The last statement's count is the answer: the update's on SQLite, the insert's (made only
    // when the update matched) on PostgreSQL.
    updated = Number(result.numAffectedRows ?? 0);
  }
  return updated;
}

type Columns = { values: string[]; set: string[]; where: string[] };
const names = (entries: [string, unknown][]) => entries.map(([column]) => column);

/** Builds the statements of a shape with a marker for each value, and finds where each value goes. */
function build(trx: Transaction<Database>, dialect: Dialect, into: Table, table: Table, columns: Columns): Shape {
  const markers = new Map<string, number>();
  const next = () => {
    const marker = `\u0000portico-value-${markers.size}\u0000`;
    markers.set(marker, markers.size);
    return marker;
  };
  const values = Object.fromEntries(columns.values.map((column) => [column, next()]));
  const set = Object.fromEntries(columns.set.map((column) => [column, next()]));
  const conditions = columns.where.map((column) => [column, next()] as const);
  // (Kysely's types cannot follow a table chosen at run time; callers' shapes are checked by theirs.)
  const updateQuery = (qc: Transaction<Database>) => {
    let query = qc.updateTable(table as 'outbox').set(set as never);
    // (`= null` matches nothing, as a lost lease should.)
    for (const [column, value] of conditions) query = query.where(column as 'id', '=', value as never);
    return query;
  };
  const compiled =
    dialect === 'postgres'
      ? [
          // The update first, and the insert only when it matched a row: one statement, which
          // writes nothing when the row was lost. (PostgreSQL types each value by its column.)
          trx
            .with('updated', (qc) => updateQuery(qc as never).returning(sql.lit(1).as('one')))
            .insertInto(into)
            .columns(columns.values as never)
            .expression(
              trx
                .selectNoFrom((eb) => columns.values.map((column) => eb.val(values[column]).as(column)) as never)
                .where((eb) => eb.exists(eb.selectFrom('updated' as never).select(sql.lit(1).as('one')))) as never,
            )
            .compile(),
        ]
      : [
          trx
            .insertInto(into)
            .values(values as never)
            .compile(),
          updateQuery(trx).compile(),
        ];
  const statements = compiled.map(({ sql, parameters }) => ({
    sql,
    slots: parameters.map((parameter) => {
      const slot = markers.get(parameter as string);
      if (slot === undefined) throw new Error(`insertThenUpdate: a parameter is not one of the values in: ${sql}`);
      return slot;
    }),
  }));
  // Every value must reach the database as a parameter, never written into the SQL.
  const passed = new Set(statements.flatMap((statement) => statement.slots));
  if (passed.size !== markers.size) throw new Error('insertThenUpdate: a value is not passed as a parameter');
  return { statements };
}
