/**
 * Keeps the leases of work waiting in a pool: every `every` ms, the items whose lease runs out
 * soon are taken out of the pool, their leases moved in the database, and those this node still
 * holds put back with the new lease. An item another node took meanwhile (its lease had lapsed)
 * is dropped: that node runs it. One renewal runs at a time; `stop` waits for the one under way.
 */
import type { Logger } from 'pino';
import type { KeyedPool } from './keyed-pool.js';

export interface LeaseRenewalOptions<T> {
  pool: KeyedPool<T>;
  /** How often to look (ms). */
  every: number;
  /** How long a new lease lasts (ms). */
  leaseMs: number;
  now(): number;
  /** When an item's lease runs out (Unix ms). */
  leaseOf(item: T): number;
  /** Whether a lease running out at `until` must be moved now. */
  renewBefore(until: number, now: number): boolean;
  /** Moves the items' leases to `lease` where this node still holds them; answers the ids moved. */
  move(items: T[], lease: number): Promise<Set<string | number>>;
  idOf(item: T): string | number;
  setLease(item: T, lease: number): void;
  logger?: Logger | undefined;
  /** What the items are, for the log. */
  what: string;
}

export class LeaseRenewal<T> {
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;

  constructor(private readonly options: LeaseRenewalOptions<T>) {}

  start(): void {
    this.timer = setInterval(() => {
      this.renewing ??= this.renew().finally(() => {
        this.renewing = undefined;
      });
    }, this.options.every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
  }

  /** One renewal (the timer's; tests call it directly). */
  async renew(): Promise<void> {
    const { pool, now: clock, leaseMs } = this.options;
    const now = clock();
    const due = pool.take((item) => this.options.renewBefore(this.options.leaseOf(item), now));
    if (due.length === 0) return;
    const lease = now + leaseMs;
    let moved: Set<string | number>;
    try {
      moved = await this.options.move(due, lease);
    } catch (error) {
      // Their leases stand as they were; the next renewal tries again.
      this.options.logger?.warn({ err: error }, `could not renew the leases of waiting ${this.options.what}`);
      pool.putBack(due);
      return;
    }
    const kept = due.filter((item) => moved.has(this.options.idOf(item)));
    for (const item of kept) this.options.setLease(item, lease);
    pool.putBack(kept);
  }
}
