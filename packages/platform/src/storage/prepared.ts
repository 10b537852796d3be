/**
 * Queries built and compiled once, run many times with new values. Kysely builds and compiles a
 * query on every call (a tree of frozen nodes, then a visitor over it), which for the few queries
 * every request runs (token, installation, membership) cost about as much as running them. A
 * prepared query is built once per database with a marker for each argument; each call only puts
 * the arguments in the markers' places. Prepared queries are reads: on SQLite they run on the read
 * connection (see `readThrough`), which keeps each statement, so a call is a lookup and a step.
 * Prepared inserts (`preparedInsert`) are the hot path's writes, compiled once per shape of rows.
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

type Compiled = { sql: string; query: CompiledQuery['query']; queryId: CompiledQuery['queryId']; slots: Slot[] };
/** Where a parameter comes from: an argument (by position), or a value the query fixed itself. */
type Slot = { arg: number } | { value: unknown };

export interface PreparedQuery<A extends unknown[], R> {
  /** Every row of the query with these arguments. */
  all(db: Kysely<Database>, ...args: A): Promise<R[]>;
  /** The first row, or undefined. */
  first(db: Kysely<Database>, ...args: A): Promise<R | undefined>;
}

/**
 * Begins the SQL of a PostgreSQL statement that is planned at each run, never prepared by name
 * (database.ts). For a statement whose best plan depends on the length of its arrays: a prepared
 * statement's plan may be kept for every later run, made while a table was new and small.
 */
export const PLANNED_EACH_RUN = '/* planned each run */ ';

/** Runs a query's SQL at once and answers its rows (SQLite's read connection, see database.ts). */
type Reader = (sql: string, parameters: readonly unknown[]) => unknown[];
const readers = new WeakMap<Kysely<Database>, Reader>();

/**
 * Prepared queries on `db` go to `read` instead of through Kysely's executor: they must then be
 * reads (the SQLite read connection refuses writes), and they never see a transaction's work
 * before it commits. Queries in a transaction (a database of its own) are not affected.
 */
export function readThrough(db: Kysely<Database>, read: Reader): void {
  readers.set(db, read);
}

/**
 * `build` receives placeholders for its arguments (declare each one: their number is read from
 * `build.length`) and must use each only as a value in a comparison, never to decide the query's
 * shape: the query is built once. Placeholders that do not come back as parameters are refused
 * at the first call.
 */
export function prepared<A extends unknown[], R>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): PreparedQuery<A, R> {
  // Per database (its dialect decides the SQL); a transaction is a database of its own, so
  // queries meant to run in transactions gain nothing here.
  const byDatabase = new WeakMap<Kysely<Database>, Compiled>();
  const compiledFor = (db: Kysely<Database>): Compiled => {
    let compiled = byDatabase.get(db);
    if (compiled === undefined) {
      compiled = compile(db, build);
      byDatabase.set(db, compiled);
    }
    return compiled;
  };
  const all = async (db: Kysely<Database>, ...args: A): Promise<R[]> => {
    const { sql, query, queryId, slots } = compiledFor(db);
    const parameters = slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value));
    const read = readers.get(db);
    if (read !== undefined) return read(sql, parameters) as R[];
    const result = await db.executeQuery<R>({ sql, query, queryId, parameters });
    return result.rows;
  };
  return { all, first: async (db, ...args) => (await all(db, ...args))[0] };
}

function compile<A extends unknown[], R>(
  db: Kysely<Database>,
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): Compiled {
  return compileWith(build.length - 1, (markers) => build(db, ...(markers as A)));
}

const MARKER = '\u0000portico-prepared-argument-';

/** Builds with a marker string in each argument's place and finds where each marker went. */
function compileWith<R>(count: number, build: (markers: string[]) => Compilable<R>): Compiled {
  const markers = Array.from({ length: count }, (_, i) => `${MARKER}${i}\u0000`);
  const compiled = build(markers).compile();
  // By marker, not by search: an insert of 500 rows has thousands of parameters.
  const argumentOf = new Map(markers.map((marker, i) => [marker, i]));
  const used = new Set<number>();
  const slots: Slot[] = compiled.parameters.map((value) => {
    const arg = typeof value === 'string' ? argumentOf.get(value) : undefined;
    if (arg === undefined) return { value };
    used.add(arg);
    return { arg };
  });
  const inText = compiled.sql.indexOf(MARKER);
  const stray =
    inText >= 0
      ? Number.parseInt(compiled.sql.slice(inText + MARKER.length), 10)
      : markers.findIndex((_, i) => !used.has(i));
  if (stray >= 0) throw new Error(`prepared query: argument ${stray} is not used as a value in: ${compiled.sql}`);
  return { sql: compiled.sql, query: compiled.query, queryId: compiled.queryId, slots };
}

type Dialect = 'sqlite' | 'postgres';
type Row = Record<string, unknown>;
/** Shapes kept per dialect; past this many (rows of ever new sizes) the cache starts again. */
const MAX_SHAPES = 512;

export interface PreparedInsert<T extends Row, R> {
  /** Inserts `rows` (each setting the same columns) and answers what the statement returns. */
  run(trx: Kysely<Database>, dialect: Dialect, rows: readonly T[]): Promise<R[]>;
}

/**
 * An insert whose statement (`build`'s: its conflict clause and returning list included) is
 * compiled once per dialect and shape of rows: how many there are and which columns they set,
 * not what they hold. It runs where it is called, in a transaction too. `build` must put the rows
 * it is given in `values` as they are; rows that set different columns are built each time.
 */
export function preparedInsert<T extends Row, R>(
  build: (db: Kysely<Database>, rows: readonly T[]) => Compilable<R>,
): PreparedInsert<T, R> {
  const shapes: Record<Dialect, Map<string, Compiled>> = { sqlite: new Map(), postgres: new Map() };
  const run = async (trx: Kysely<Database>, dialect: Dialect, rows: readonly T[]): Promise<R[]> => {
    if (rows.length === 0) return [];
    const columns = definedColumns(rows[0] as T);
    if (rows.some((row) => !sameColumns(row, columns)))
      return (await trx.executeQuery<R>(build(trx, rows).compile())).rows;
    const key = `${rows.length} ${columns.join(' ')}`;
    const cache = shapes[dialect];
    let compiled = cache.get(key);
    if (compiled === undefined) {
      compiled = compileWith(rows.length * columns.length, (markers) => {
        const markerRows = rows.map((_, r) =>
          Object.fromEntries(columns.map((column, c) => [column, markers[r * columns.length + c]])),
        );
        return build(trx, markerRows as unknown as T[]);
      });
      if (cache.size >= MAX_SHAPES) cache.clear();
      cache.set(key, compiled);
    }
    const values: unknown[] = [];
    for (const row of rows) for (const column of columns) values.push(row[column]);
    const { sql, query, queryId, slots } = compiled;
    const parameters = slots.map((slot) => ('arg' in slot ? values[slot.arg] : slot.value));
    return (await trx.executeQuery<R>({ sql, query, queryId, parameters })).rows;
  };
  return { run };
}

/** The columns a row sets, in its order (Kysely leaves out those set to undefined). */
function definedColumns(row: Row): string[] {
  return Object.keys(row).filter((column) => row[column] !== undefined);
}

function sameColumns(row: Row, columns: string[]): boolean {
  let i = 0;
  for (const column in row) {
    if (row[column] === undefined) continue;
    if (columns[i] !== column) return false;
    i++;
  }
  return i === columns.length;
}
