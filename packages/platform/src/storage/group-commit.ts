/**
 * Group commit: writes that arrive while a transaction is committing wait for the next one and
 * share it, so a burst of events, dispatch results and delivery attempts costs one commit (one
 * fsync on SQLite, one WAL flush on PostgreSQL) instead of one each. Each write runs in its own
 * savepoint: one that fails is rolled back alone and rejects alone; the others commit. A write is
 * acknowledged (its promise resolves) only after the commit that holds it succeeded; if that
 * commit fails, every write in it rejects.
 *
 * A write must use only the transaction it is given: on SQLite, a query through the database
 * itself would wait for the connection this transaction holds.
 *
 * A batch first runs without savepoints (on PostgreSQL each savepoint is a round trip: they were a
 * quarter of the statements per event; on SQLite two statements per write). Should a write in it
 * fail, the whole transaction is rolled back and the batch runs again, each write in its
 * savepoint. So a write may run more than once: it must change nothing outside its transaction
 * until its promise resolves.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import { isDatabaseUnavailable } from './database-faults.js';
import type { Database } from './schema.js';

const RELEASE = sql.raw('release savepoint portico_write');
const SAVEPOINT = sql.raw('savepoint portico_write');
/** PostgreSQL takes both in one query (SQLite prepares one statement at a time; there they cost no trip). */
const RELEASE_AND_SAVEPOINT = sql.raw('release savepoint portico_write; savepoint portico_write');

export type Write<T> = (trx: Transaction<Database>) => Promise<T>;

export interface WriteOptions {
  /**
   * On PostgreSQL the write is one statement (possibly followed by reads): it needs no transaction
   * of its own. There it runs at once on a pooled connection, without BEGIN and COMMIT (two round
   * trips fewer), beside the batches; it is durable once it resolves, as PostgreSQL commits each
   * statement, and commits that arrive together share a WAL flush. On SQLite it joins a batch.
   */
  standalone?: boolean;
  /**
   * Engine work that is acknowledged to no one (an attempt's result): a standalone one runs on the
   * database's engine connections, whose commits do not wait for the WAL's flush
   * (`OpenDatabase.engineDb`). In a batch it commits as the batch does.
   */
  engine?: boolean;
}

interface Job {
  work: Write<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * The settings each back end runs with. PostgreSQL: a few transactions side by side (each statement
 * is a round trip), each under its 64-subtransaction cache; SQLite: one at a time (its writes take
 * turns anyway).
 */
export function groupCommitOptions(dialect: 'sqlite' | 'postgres') {
  return dialect === 'postgres'
    ? { maxBatch: 48, parallel: 4, oneTrip: true, optimistic: true, autocommit: true }
    : { maxBatch: 500, parallel: 1, optimistic: true };
}

export class GroupCommit {
  private queue: Job[] = [];
  private readonly flushing = new Set<Promise<void>>();
  /** Standalone writes under way on PostgreSQL (outside the batches). */
  private readonly standalone = new Set<Promise<unknown>>();
  /** Transactions committed (or tried) so far, for tests and benchmarks. */
  transactions = 0;

  constructor(
    private readonly db: Kysely<Database>,
    options: {
      /** Most writes one transaction takes (on PostgreSQL keep it under 64: each is a subtransaction). */
      maxBatch?: number;
      /** Transactions committing at once (1 on SQLite, whose writes take turns anyway). */
      parallel?: number;
      /** Whether the database takes two statements in one query (PostgreSQL). */
      oneTrip?: boolean;
      /** Run a batch without savepoints first, and again with them only when a write in it fails. */
      optimistic?: boolean;
      /** Run standalone writes at once, each without a transaction (`WriteOptions`). */
      autocommit?: boolean;
      /** Where standalone engine writes run (`WriteOptions.engine`); `db` when not given. */
      engineDb?: Kysely<Database> | undefined;
      /** Told the size of each batch taken for a transaction (metrics). */
      onBatch?: (size: number) => void;
      /** What a transaction must wait for before it starts, if anything (`OpenDatabase.beforeWrites`). */
      beforeWrites?: (() => Promise<void> | undefined) | undefined;
      /** Told each error a write rejects with (the server watches for a full disk: readiness.ts). */
      onFailure?: ((error: unknown) => void) | undefined;
    } = {},
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.parallel = options.parallel ?? 1;
    this.oneTrip = options.oneTrip ?? false;
    this.optimistic = options.optimistic ?? false;
    this.autocommit = options.autocommit ?? false;
    this.engineDb = options.engineDb ?? db;
    this.onBatch = options.onBatch;
    this.beforeWrites = options.beforeWrites;
    this.onFailure = options.onFailure;
  }

  private readonly maxBatch: number;
  private readonly parallel: number;
  private readonly oneTrip: boolean;
  private readonly optimistic: boolean;
  private readonly autocommit: boolean;
  private readonly engineDb: Kysely<Database>;
  private readonly onBatch: ((size: number) => void) | undefined;
  private readonly beforeWrites: (() => Promise<void> | undefined) | undefined;
  private readonly onFailure: ((error: unknown) => void) | undefined;
  /** Batches run again with savepoints because a write failed without them, for tests. */
  rerun = 0;

  /**
   * Runs `work` in the next shared transaction (a standalone write on PostgreSQL in none: see
   * `WriteOptions`); resolves with its result once that has committed.
   */
  run<T>(work: Write<T>, options: WriteOptions = {}): Promise<T> {
    if (this.autocommit && options.standalone) {
      this.transactions++;
      // (A Kysely instance runs each statement on a pooled connection, committed on its own.)
      const db = options.engine ? this.engineDb : this.db;
      const running = this.watched(work(db as Transaction<Database>));
      this.standalone.add(running);
      const done = () => this.standalone.delete(running);
      running.then(done, done);
      return running;
    }
    return this.watched(
      new Promise<T>((resolve, reject) => {
        this.queue.push({
          work,
          resolve: resolve as (value: unknown) => void,
          reject,
        });
        this.kick();
      }),
    );
  }

  private watched<T>(write: Promise<T>): Promise<T> {
    const onFailure = this.onFailure;
    if (onFailure === undefined) return write;
    return write.catch((error: unknown) => {
      onFailure(error);
      throw error;
    });
  }

  /**
   * The database did not take a batch (unreachable, or no answer in time): the writes queued
   * behind it, none of them begun, fail with the same error at once instead of each waiting its
   * own turn to time out, so that every request gets its answer within the same few seconds.
   */
  private failQueued(error: unknown): void {
    if (!isDatabaseUnavailable(error)) return;
    for (const job of this.queue.splice(0)) job.reject(error);
  }

  private kick(): void {
    if (this.flushing.size >= this.parallel || this.queue.length === 0) return;
    const flushing: Promise<void> = this.flush().finally(() => {
      this.flushing.delete(flushing);
      // A write queued after the last look at the queue, but before this, is not left behind.
      this.kick();
    });
    this.flushing.add(flushing);
  }

  /** Waits until every write queued so far has committed (or failed). */
  async drain(): Promise<void> {
    while (this.flushing.size + this.standalone.size > 0)
      await Promise.allSettled([...this.flushing, ...this.standalone]);
  }

  private async flush(): Promise<void> {
    // Let the writes of this turn of the event loop join the first transaction.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      // (Writes that arrive meanwhile join the next transaction.)
      const wait = this.beforeWrites?.();
      if (wait) await wait;
      if (this.queue.length > this.maxBatch) this.kick();
      const batch = this.queue.splice(0, this.maxBatch);
      this.onBatch?.(batch.length);
      if (this.optimistic && batch.length > 1 && (await this.runWhole(batch))) continue;
      const outcomes: Outcome[] = [];
      this.transactions++;
      try {
        await this.db.transaction().execute(async (trx) => {
          if (batch.length === 1) {
            outcomes.push(await settle((batch[0] as Job).work(trx)));
            // A lone write that fails fails its transaction as it would on its own.
            if (!outcomes[0]?.ok) throw (outcomes[0] as { error: unknown }).error;
            return;
          }
          // Between two writes, one statement ends the savepoint of the first and opens the next
          // (a round trip each on PostgreSQL, where these were a quarter of the statements).
          await SAVEPOINT.execute(trx);
          for (const [i, job] of batch.entries()) {
            const outcome = await settle(job.work(trx));
            if (!outcome.ok) await sql`rollback to savepoint portico_write`.execute(trx);
            if (i === batch.length - 1) await RELEASE.execute(trx);
            else if (this.oneTrip) await RELEASE_AND_SAVEPOINT.execute(trx);
            else {
              await RELEASE.execute(trx);
              await SAVEPOINT.execute(trx);
            }
            outcomes.push(outcome);
          }
        });
      } catch (error) {
        // The commit failed (or the lone write did): nothing in this batch was written.
        for (const [i, job] of batch.entries()) {
          const outcome = outcomes[i];
          job.reject(outcome && !outcome.ok ? outcome.error : error);
        }
        this.failQueued(error);
        continue;
      }
      for (const [i, job] of batch.entries()) {
        const outcome = outcomes[i] as (typeof outcomes)[number];
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      }
    }
  }

  /**
   * Runs the batch in one transaction with no savepoints. Answers true when it is settled (every
   * write committed, or the commit failed and every write rejected), false when a write failed and
   * everything was rolled back: the caller runs the batch again with savepoints.
   */
  private async runWhole(batch: Job[]): Promise<boolean> {
    const values: unknown[] = [];
    this.transactions++;
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const job of batch) {
          const outcome = await settle(job.work(trx));
          if (!outcome.ok) throw new WriteFailed();
          values.push(outcome.value);
        }
      });
    } catch (error) {
      if (error instanceof WriteFailed) {
        this.rerun++;
        return false;
      }
      for (const job of batch) job.reject(error);
      this.failQueued(error);
      return true;
    }
    for (const [i, job] of batch.entries()) job.resolve(values[i]);
    return true;
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Thrown inside a batch's transaction to roll it back when one of its writes failed. */
class WriteFailed extends Error {}

async function settle<T>(work: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    return { ok: false, error };
  }
}
