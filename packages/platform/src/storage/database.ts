/**
 * Opens the database: SQLite (a file under the data directory, WAL mode) by default, or
 * PostgreSQL when the URL says `postgres://`. Both sit behind one Kysely instance, so the
 * repositories have a single code path.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { ACQUIRE_TIMEOUT_MS, DatabaseTimeout } from './database-faults.js';
import { DURABLE_AT_COMMIT, type Durability, WalSync } from './durability.js';
import { EVERY_TABLE, keepReads, namesWritten } from './kept-reads.js';
import { PLANNED_EACH_RUN, readThrough } from './prepared.js';
import type { Database } from './schema.js';
import { startWalCheckpointer } from './wal-checkpointer.js';

export type Dialect = 'sqlite' | 'postgres';

export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * PostgreSQL: connections for engine work that is acknowledged to no one (an attempt's result),
   * whose commits do not wait for the WAL's flush (`synchronous_commit = off`), as SQLite's engine
   * writes wait for no sync (durability.ts). A commit is visible to every connection at once; only
   * a crash of PostgreSQL itself may lose the last of them (at most three `wal_writer_delay`s, 0.6 s
   * by default), and what they did is then done again. Undefined on SQLite.
   */
  engineDb?: Kysely<Database>;
  /** The SQLite connection itself, for work that must not interleave with other queries. */
  sqlite?: SQLite.Database;
  /** When commits are on disk (durability.ts): the API waits for it before acknowledging a write. */
  durability: Durability;
  /** PostgreSQL: the connections of both pools now, added together (metrics); undefined on SQLite. */
  poolUse?(): { total: number; idle: number; waiting: number; max: number };
  /**
   * SQLite: before a transaction of writes, what it must wait for, if anything: the log copied
   * into the database once it has grown past its limit (wal-checkpointer.ts). Undefined: nothing.
   */
  beforeWrites?(): Promise<void> | undefined;
  /**
   * PostgreSQL: from now on a statement with no answer within `ms` (0: none) fails with
   * `DatabaseTimeout`, and its connection is closed (a database that holds every byte never
   * answers, and TCP alone would wait for hours). The server sets it once migrations ran (they may
   * take longer). SQLite: nothing (its calls are synchronous; a lock waits its busy timeout).
   */
  limitStatements(ms: number): void;
  /**
   * Closes the database. PostgreSQL: after `forceAfterMs`, connections still open (held by
   * statements that hang, or waiting for the server's goodbye) are closed under them, so that
   * closing ends even while the database does not answer.
   */
  close(forceAfterMs?: number): Promise<void>;
}

export interface DatabaseLocation {
  /** A `postgres://` or `postgresql://` URL, or undefined for SQLite. */
  url?: string | undefined;
  /** The SQLite file (used when `url` is undefined). */
  sqliteFile: string;
  /**
   * PostgreSQL: told when an idle pooled connection fails (the server restarted, or ended it);
   * the pool replaces it. Without a listener such an error would end the process.
   */
  onIdleConnectionError?: (error: Error) => void;
  /** SQLite: told when the checkpoint thread failed; commits checkpoint again from then on (wal-checkpointer.ts). */
  onCheckpointerFailure?: (error: Error) => void;
  /** SQLite: the log's size past which writes wait for it to be started again (default `WAL_LIMIT_BYTES`). */
  walLimitBytes?: number;
}

const MAX_CACHED_STATEMENTS = 500;
/** The SQLite log's size past which writes wait for it to be copied into the database and started again. */
export const WAL_LIMIT_BYTES = 64 * 1024 * 1024;
/** How often, at most, a write looks at the log's size. */
const WAL_LOOK_MS = 10;
/**
 * How long, at most, a read kept until its tables change (kept-reads.ts) may miss a commit made
 * by another connection to the file; this node's own writes are seen at once.
 */
export const OTHER_COMMITS_LOOK_MS = 100;
/** PostgreSQL's `feature_not_supported`, which it answers when a prepared statement's result type changed. */
const PLAN_CHANGED = '0A000';

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

export function openDatabase(location: DatabaseLocation): OpenDatabase {
  if (isPostgresUrl(location.url)) return openPostgres(location.url, location.onIdleConnectionError);
  return openSqlite(location.sqliteFile, location.onCheckpointerFailure, location.walLimitBytes);
}

function openSqlite(
  file: string,
  onCheckpointerFailure: (error: Error) => void = () => {},
  walLimitBytes = WAL_LIMIT_BYTES,
): OpenDatabase {
  mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL: a commit does not sync the log; the API syncs it off the event loop before it
  // acknowledges a write, one sync for many commits (durability.ts).
  sqlite.pragma('synchronous = NORMAL');
  const durability = new WalSync(file);
  sqlite.pragma('foreign_keys = ON');
  // Another process holding the file's lock makes a write wait this long (blocking the event
  // loop), then fail with SQLITE_BUSY, answered 503 database_unavailable: short enough for an
  // answer within 5 s.
  sqlite.pragma('busy_timeout = 2000');
  // Checkpoints run on a thread of their own (wal-checkpointer.ts), never in a commit here; should
  // that thread fail, commits checkpoint again (SQLite's default, every 1,000 pages of log).
  sqlite.pragma('wal_autocheckpoint = 0');
  // Started again from its beginning, the log is cut back to this size.
  sqlite.pragma(`journal_size_limit = ${walLimitBytes}`);
  const checkpointer = startWalCheckpointer(file, (error) => {
    if (sqlite.open) sqlite.pragma('wal_autocheckpoint = 1000');
    onCheckpointerFailure(error);
  });
  // Checkpoints on the thread never find the whole log copied while commits go on without a
  // pause: past its limit, the next writes wait until it is (wal-checkpointer.ts).
  let lookedAt = 0;
  const logPastLimit = () => {
    const now = performance.now();
    if (now - lookedAt < WAL_LOOK_MS) return undefined;
    lookedAt = now;
    let size = 0;
    try {
      size = statSync(`${file}-wal`).size;
    } catch {
      return undefined;
    }
    return size > walLimitBytes ? checkpointer.catchUp() : undefined;
  };
  // A transaction also waits for the log's sync under way, if any: the writes that waited for it
  // then commit together, and one sync covers them all (durability.ts, `syncing`).
  const beforeWrites = () => logPastLimit() ?? durability.syncing();
  // Kysely prepares every query afresh; preparing was the largest cost of a request, so the
  // statements are kept, keyed by their SQL (the queries are few and fixed). Every statement
  // passes here, just before it runs, so this is also where writes are counted: per name they
  // hold, for the reads kept until their tables change (kept-reads.ts), and as commits for
  // durability.ts: a write outside a transaction at once, one inside at its transaction's commit
  // (Kysely's `commit`), when its frames reach the log.
  const statements = new Map<string, { statement: SQLite.Statement; writes: string[] | undefined }>();
  const written = new Map<string, number>();
  let uncommitted = false;
  const cached = {
    prepare(text: string) {
      let cache = statements.get(text);
      if (cache === undefined) {
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear();
        const statement = sqlite.prepare(text);
        cache = { statement, writes: statement.readonly ? undefined : namesWritten(text) };
        statements.set(text, cache);
      }
      if (cache.writes !== undefined) {
        if (sqlite.inTransaction) uncommitted = true;
        else durability.committed();
        for (const name of cache.writes) written.set(name, (written.get(name) ?? 0) + 1);
      } else if (uncommitted && (text === 'commit' || text === 'rollback')) {
        uncommitted = false;
        if (text === 'commit') durability.committed();
      }
      return cache.statement;
    },
    close: () => sqlite.close(),
  };
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached }) });
  // The reads every request makes (prepared.ts) skip Kysely's executor and run at once. Between
  // transactions they run on the connection that writes: its page cache stays valid across its
  // own commits, while another connection's is thrown away at each of them (a routing read cost
  // about three times as much there, right after a commit). During a transaction (Kysely's spans
  // several turns of the microtask queue) they run on a second connection: in WAL mode it reads
  // the last commit, so they neither queue behind the transaction nor see what it has not
  // committed yet.
  const reader = new SQLite(file);
  reader.pragma('query_only = ON');
  reader.pragma('busy_timeout = 2000');
  const readsOf = (connection: SQLite.Database) => {
    const statements = new Map<string, { statement: SQLite.Statement; toRow: (values: unknown[]) => unknown }>();
    return (text: string, parameters: readonly unknown[]) => {
      let read = statements.get(text);
      if (read === undefined) {
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear();
        const statement = connection.prepare(text);
        if (!statement.readonly) throw new Error(`a prepared query must only read (prepared.ts): ${text}`);
        read = { statement: statement.raw(true), toRow: rowMaker(statement.columns().map((c) => c.name)) };
        statements.set(text, read);
      }
      return (read.statement.all(parameters as unknown[]) as unknown[][]).map(read.toRow);
    };
  };
  const readHere = readsOf(sqlite);
  const readBeside = readsOf(reader);
  readThrough(db, (text, parameters) =>
    sqlite.inTransaction ? readBeside(text, parameters) : readHere(text, parameters),
  );
  // (Migrations write through the connection itself, before anything reads.) Another
  // connection's commits (another process on the file: an operator's shell) are looked for at
  // most every OTHER_COMMITS_LOOK_MS: `PRAGMA data_version` takes and drops the log's read lock,
  // two system calls, and was most of what a kept read still cost per event.
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let otherCommits = 0;
  let lookedForCommits = Number.NEGATIVE_INFINITY;
  keepReads(db, {
    version(tables) {
      const now = performance.now();
      if (now - lookedForCommits >= OTHER_COMMITS_LOOK_MS) {
        otherCommits = dataVersion.get() as number;
        lookedForCommits = now;
      }
      let count = written.get(EVERY_TABLE) ?? 0;
      for (const table of tables) count += written.get(table) ?? 0;
      return `${otherCommits} ${count}`;
    },
    readsEverything: () => !sqlite.inTransaction,
  });
  return {
    db,
    dialect: 'sqlite',
    sqlite,
    durability,
    beforeWrites,
    limitStatements: () => {},
    close: async () => {
      await checkpointer.close();
      await durability.close();
      await db.destroy();
      reader.close();
    },
  };
}

/**
 * Makes the row objects of a statement from its arrays of values. better-sqlite3 builds each
 * object a property at a time through V8's API, and so would a loop over the names here (about
 * ten times slower, measured on a 14-column row); an object literal with the statement's column
 * names (written as JSON strings) is built at once, always with the same shape.
 */
function rowMaker(columns: string[]): (values: unknown[]) => unknown {
  if (columns.includes('__proto__')) {
    // (In a literal that name would set the prototype.)
    return (values) => Object.fromEntries(columns.map((name, i) => [name, values[i]]));
  }
  const properties = columns.map((name, i) => `${JSON.stringify(name)}: values[${i}]`);
  return new Function('values', `return { ${properties.join(', ')} };`) as (values: unknown[]) => unknown;
}

/** Connections for the API's work (`OpenDatabase.db`). */
const API_CONNECTIONS = 10;
/** Connections for engine work (`OpenDatabase.engineDb`): as many as attempt results run statements at once. */
const ENGINE_CONNECTIONS = 4;

function openPostgres(url: string, onIdleConnectionError: (error: Error) => void = () => {}): OpenDatabase {
  const poolOptions = (max: number): pg.PoolConfig => ({
    connectionString: url,
    max,
    // Connections are kept while they idle (pg closes them after 10 s by default). A new one costs
    // PostgreSQL a backend, and every statement is prepared and planned on it again: at a steady
    // 200 events / s, the connections closed in a lull and opened again in the next burst held
    // deliveries up by 15-50 ms. An idle connection that fails is replaced (onIdleConnectionError).
    idleTimeoutMillis: 0,
    // A request waits this long at most for a connection (a free one, or a new one to open), then
    // is answered 503 database_unavailable; without it, it waited as long as the database hung.
    connectionTimeoutMillis: ACQUIRE_TIMEOUT_MS,
    // The kernel notices a peer that vanished (a cut without a reset) on idle connections too.
    keepAlive: true,
    // BIGINT columns hold millisecond times and counters well inside 2^53.
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
    },
  });
  const pool = new pg.Pool(poolOptions(API_CONNECTIONS));
  // Engine work is acknowledged to no one: its commits do not wait for the WAL's flush (durability.ts).
  const enginePool = new pg.Pool({ ...poolOptions(ENGINE_CONNECTIONS), options: '-c synchronous_commit=off' });
  // Statements with parameters are prepared once per connection, by name, and then only bound and
  // run: PostgreSQL parsed and planned each one afresh before, the larger part of its work per event.
  // Those that begin with PLANNED_EACH_RUN are not (prepared.ts).
  // A migration run by another node (a column added) makes PostgreSQL refuse a prepared `select *`
  // ("cached plan must not change result type"): that text is then run unnamed from then on, on
  // every connection, and the query is tried once more (inside a transaction the retry fails too,
  // and the original error is what the caller gets).
  const names = new Map<string, string | null>();
  let statementTimeoutMs = 0;
  /** The pool's connections (closed under their work when closing must not wait: `close`). */
  const open = new Set<pg.PoolClient>();
  /** Ends a connection under whatever runs on it: the statement fails, and the pool drops it on release. */
  const destroy = (client: pg.PoolClient) =>
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  const instrument = (client: pg.PoolClient) => {
    open.add(client);
    // The pool listens for errors only on idle connections: one that breaks while a caller holds
    // it (between a transaction's statements, say) would otherwise emit an error nobody hears,
    // which ends the process. Its next statement fails with the cause instead, and the pool drops
    // it when it is released.
    client.on('error', () => {});
    const untimed = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    // Every statement races its time (limitStatements): one that loses closes the connection, so
    // the pool replaces it rather than lend out one whose answer may still arrive.
    const query = (...args: unknown[]): Promise<unknown> => {
      const running = untimed(...args);
      const ms = statementTimeoutMs;
      if (ms === 0 || typeof (running as { then?: unknown })?.then !== 'function') return running;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new DatabaseTimeout(ms));
          destroy(client as pg.PoolClient);
        }, ms);
      });
      running.catch(() => {});
      return Promise.race([running, late]).finally(() => clearTimeout(timer));
    };
    (client as { query: unknown }).query = (text: unknown, values?: unknown[], ...rest: unknown[]) => {
      if (
        typeof text !== 'string' ||
        values === undefined ||
        values.length === 0 ||
        rest.length > 0 ||
        text.startsWith(PLANNED_EACH_RUN)
      )
        return query(text, values, ...rest);
      let name = names.get(text);
      if (name === undefined) {
        name = names.size < MAX_CACHED_STATEMENTS ? `portico_${names.size}` : null;
        names.set(text, name);
      }
      if (name === null) return query(text, values);
      return query({ name, text, values }).catch((error: { code?: string }) => {
        if (error.code !== PLAN_CHANGED) throw error;
        names.set(text, null);
        return query(text, values).catch(() => {
          throw error;
        });
      });
    };
  };
  for (const each of [pool, enginePool]) {
    each.on('error', onIdleConnectionError);
    each.on('remove', (client) => open.delete(client as pg.PoolClient));
    each.on('connect', (client) => instrument(client));
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const engineDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: enginePool }) });
  const pools = [pool, enginePool];
  const sum = (of: (pool: pg.Pool) => number) => pools.reduce((total, each) => total + of(each), 0);
  return {
    db,
    engineDb,
    dialect: 'postgres',
    durability: DURABLE_AT_COMMIT,
    poolUse: () => ({
      total: sum((each) => each.totalCount),
      idle: sum((each) => each.idleCount),
      waiting: sum((each) => each.waitingCount),
      max: sum((each) => each.options.max),
    }),
    limitStatements: (ms) => {
      statementTimeoutMs = ms;
    },
    close: async (forceAfterMs) => {
      const force =
        forceAfterMs === undefined
          ? undefined
          : setTimeout(() => {
              for (const client of open) destroy(client);
            }, forceAfterMs);
      try {
        await Promise.all([db.destroy(), engineDb.destroy()]);
      } finally {
        clearTimeout(force);
      }
    },
  };
}
