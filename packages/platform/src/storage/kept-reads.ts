/**
 * Reads kept in memory until what they read changes (decision 059). SQLite only: there every
 * write of this node goes through one connection (database.ts), which counts, per name, the
 * write statements that named a table; a commit by another connection (another process on the
 * same file) changes `PRAGMA data_version`. Together they are a table's version: a kept read whose
 * tables' version moved is read again. PostgreSQL registers nothing (other nodes write, and
 * nothing here would see it), so a kept read there is always read afresh.
 *
 * A version moves when a write statement runs, before its transaction commits; reads made while
 * a transaction is open see the last commit only, so they are used but never kept.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface TableVersions {
  /** A value that differs after any write naming one of `tables` on this database, or any commit elsewhere (on SQLite, seen within `OTHER_COMMITS_LOOK_MS`). */
  version(tables: readonly string[]): string;
  /** Whether a read made now sees every write counted so far (false while a transaction is open). */
  readsEverything(): boolean;
}

const versionsOf = new WeakMap<Kysely<Database>, TableVersions>();

/** Reads of `db` may be kept while `versions` says their tables are unchanged (database.ts, SQLite). */
export function keepReads(db: Kysely<Database>, versions: TableVersions): void {
  versionsOf.set(db, versions);
}

/**
 * The names in a write statement's SQL that its writes may concern: every identifier it holds
 * (over-counting a column's name only reads a kept read again), or every table for a change of
 * the schema.
 */
export function namesWritten(sql: string): string[] {
  if (/^\s*(create|drop|alter)\b/i.test(sql)) return [EVERY_TABLE];
  return [...new Set(sql.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])];
}

/** The name a schema change counts under: every table's version includes it. */
export const EVERY_TABLE = '*';

/** A read's value, and until when (Unix ms, exclusive) it holds whatever else happens. */
export interface Timed<V> {
  value: V;
  until: number;
}

interface Entry<V> {
  version: string;
  /** The clock when it was read: a clock set back (tests) reads again. */
  from: number;
  until: number;
  value: V;
}

/**
 * A read of `tables`, kept per database and key (at most `limit` keys, then forgotten all at
 * once): answers `(db, key, now, read)`, which is the kept value while its tables are unchanged
 * and `now` is within its time, else `read()`'s (kept when it may be).
 */
export function keptRead<V>(tables: readonly string[], limit = 10_000) {
  const kept = new WeakMap<Kysely<Database>, Map<string, Entry<V>>>();
  return async (db: Kysely<Database>, key: string, now: number, read: () => Promise<Timed<V>>): Promise<V> => {
    const versions = versionsOf.get(db);
    if (versions === undefined) return (await read()).value;
    let entries = kept.get(db);
    if (entries === undefined) {
      entries = new Map();
      kept.set(db, entries);
    }
    // (Taken before the read: a write between the two leaves the read kept under the older
    // version, so it is read again; never a read older than its version.)
    const version = versions.version(tables);
    const entry = entries.get(key);
    if (entry !== undefined && entry.version === version && entry.from <= now && now < entry.until) return entry.value;
    const keep = versions.readsEverything();
    const { value, until } = await read();
    if (keep) {
      if (entries.size >= limit) entries.clear();
      entries.set(key, { version, from: now, until, value });
    } else entries.delete(key);
    return value;
  };
}
