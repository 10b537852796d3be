/**
 * Retention: finished work older than the retention period (`Tuning.retentionMs`) is deleted in
 * the background, so the log tables do not grow without bound. Only finished work goes, never
 * anything still owed:
 * - outbox rows already dispatched, by `dispatched_at`;
 * - events already routed, by `received_at`, once no outbox row is still owed for them;
 * - dispatches and egress rows, by `at`;
 * - deliveries that ended (`delivered` or `failed`), by `updated_at`, their attempts first;
 * - recover-since jobs that finished (`done` or `failed`), by `finished_at`.
 *
 * Each batch is one short statement (its own transaction; a delivery batch is two) over a few
 * hundred rows, found through the indexes of migration 005 from the oldest row up; the pruner
 * yields between batches, goes on while batches come back full, and otherwise sleeps until the
 * next pass. Nothing it deletes is a row that ingest, the dispatcher or the delivery engine still
 * writes, so it takes no lock they wait for. On PostgreSQL each batch claims its rows with
 * `FOR UPDATE SKIP LOCKED`, so nodes pruning the same database at once take different rows and
 * never wait for, or deadlock with, each other.
 */
import type { Logger } from 'pino';
import { WakeLoop } from '../queue/wake-loop.js';
import * as retention from '../storage/repositories/retention.js';
import type { ServiceContext } from '../types.js';

/** The tables the pruner deletes from, in the order it works through them. */
export const PRUNED_TABLES = [
  'outbox',
  'events',
  'dispatches',
  'delivery_attempts',
  'deliveries',
  'egress',
  'recoveries',
] as const;
export type PrunedTable = (typeof PRUNED_TABLES)[number];
/** How many rows of each table were removed. */
export type PruneCounts = Record<PrunedTable, number>;

export interface RetentionOptions {
  /** The database and the clock (the pruner needs nothing else of the service context). */
  ctx: Pick<ServiceContext, 'db' | 'dialect' | 'now'>;
  /** Finished rows older than this are deleted (ms). */
  retentionMs: number;
  logger?: Logger | undefined;
  /** Sleep between passes (default 1 h). */
  intervalMs?: number;
  /** Rows per delete statement (default 500). */
  batchSize?: number;
  /** Pause between batches (default 0: only yield to the event loop). */
  pauseMs?: number;
  /** The clock (Unix ms; default the service clock), controllable in tests. */
  now?: () => number;
}

/** One batch: what it removed, and whether it came back full (so another may follow). */
interface Batch {
  counts: Partial<PruneCounts>;
  more: boolean;
}

export class RetentionPruner {
  private readonly ctx: RetentionOptions['ctx'];
  private readonly now: () => number;
  private readonly batchSize: number;
  private readonly loop: WakeLoop;
  private stopping = false;

  constructor(private readonly options: RetentionOptions) {
    if (!(options.retentionMs > 0)) throw new Error(`retentionMs must be positive, got ${options.retentionMs}`);
    this.ctx = options.ctx;
    this.now = options.now ?? (() => options.ctx.now());
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
    this.loop = new WakeLoop(
      async () => {
        const started = performance.now();
        const removed = await this.pruneOnce();
        const total = Object.values(removed).reduce((sum, n) => sum + n, 0);
        if (total > 0) {
          options.logger?.info(
            { removed, durationMs: Math.round(performance.now() - started), retentionMs: options.retentionMs },
            `retention: removed ${total} rows older than the retention period`,
          );
        }
      },
      () => options.intervalMs ?? 60 * 60 * 1000,
      (error) => options.logger?.error({ err: error }, 'retention pass failed'),
    );
  }

  /** Runs a pass now, then one every interval. */
  start(): void {
    this.stopping = false;
    this.loop.start();
  }

  /** Stops sleeping, lets the batch in flight finish (the pass ends after it), and returns. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
  }

  /**
   * Deletes every finished row older than the retention period, batch by batch, and answers how
   * many rows of each table it removed. A batch that comes back full is followed by another (after
   * a yield); once stopping, the pass ends after the batch in flight.
   */
  async pruneOnce(): Promise<PruneCounts> {
    const cutoff = this.now() - this.options.retentionMs;
    const removed = Object.fromEntries(PRUNED_TABLES.map((table) => [table, 0])) as PruneCounts;
    const batches: (() => Promise<Batch>)[] = [
      () => this.pruneOutbox(cutoff),
      () => this.pruneEvents(cutoff),
      () => this.pruneByAt('dispatches', cutoff),
      () => this.pruneDeliveries(cutoff),
      () => this.pruneByAt('egress', cutoff),
      () => this.pruneRecoveries(cutoff),
    ];
    for (const batch of batches) {
      for (;;) {
        const { counts, more } = await batch();
        for (const [table, count] of Object.entries(counts)) removed[table as PrunedTable] += count;
        if (!more || this.stopping) break;
        await this.pause();
      }
      if (this.stopping) break;
    }
    return removed;
  }

  private pause(): Promise<void> {
    const ms = this.options.pauseMs ?? 0;
    return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
  }

  /**
   * A batch that removed anything is followed by another: one short of the batch size may only
   * mean that another node's pruner holds the rows it skipped (PostgreSQL, SKIP LOCKED), and
   * stopping then could leave rows behind when both stop at once. A table is done after a batch
   * that found nothing.
   */
  private batch(table: PrunedTable, result: { numDeletedRows: bigint } | undefined): Batch {
    const count = Number(result?.numDeletedRows ?? 0n);
    return { counts: { [table]: count }, more: count > 0 };
  }

  /** Outbox rows dispatched before the cutoff. */
  private async pruneOutbox(cutoff: number): Promise<Batch> {
    const result = await retention.pruneOutbox(this.ctx.db, this.ctx.dialect, cutoff, this.batchSize);
    return this.batch('outbox', result);
  }

  /**
   * Events routed and received before the cutoff, for which no outbox row is still owed. An event
   * not routed yet is never taken, however old; one being routed right now is locked by the router
   * (PostgreSQL: skipped) or not routed yet in this statement's view.
   */
  private async pruneEvents(cutoff: number): Promise<Batch> {
    const result = await retention.pruneEvents(this.ctx.db, this.ctx.dialect, cutoff, this.batchSize);
    return this.batch('events', result);
  }

  /** Dispatch log or egress rows from before the cutoff. */
  private async pruneByAt(table: 'dispatches' | 'egress', cutoff: number): Promise<Batch> {
    const result = await retention.pruneByAt(this.ctx.db, this.ctx.dialect, table, cutoff, this.batchSize);
    return this.batch(table, result);
  }

  /** Recover-since jobs that finished before the cutoff (a running one is never removed). */
  private async pruneRecoveries(cutoff: number): Promise<Batch> {
    const result = await retention.pruneRecoveries(this.ctx.db, this.ctx.dialect, cutoff, this.batchSize);
    return this.batch('recoveries', result);
  }

  /**
   * Deliveries that ended before the cutoff, with their attempts: first a batch of their attempts
   * (however many each has: a policy may give one dozens), then the ended deliveries left without
   * attempts. Each is its own statement (no
   * transaction held across them, so a SQLite connection never keeps the write lock while another
   * waits); the second statement's guard means no delivery is ever deleted before its attempts,
   * whatever another node does in between. An ended delivery gets no more attempts (a redelivery
   * is a new delivery), so in between it is only short of the attempts it is about to lose anyway.
   */
  private async pruneDeliveries(cutoff: number): Promise<Batch> {
    const { attempts, deliveries } = await retention.pruneDeliveries(
      this.ctx.db,
      this.ctx.dialect,
      cutoff,
      this.batchSize,
    );
    const counts = {
      delivery_attempts: Number(attempts.numDeletedRows),
      deliveries: Number(deliveries.numDeletedRows),
    };
    return { counts, more: counts.delivery_attempts + counts.deliveries > 0 };
  }
}
