/**
 * The scheduler's core: a pool of work items on this node, with fair turns and caps per key.
 *
 * - **Waiting** items queue per *turn key* (for deliveries: the endpoint). The turn keys with work
 *   waiting take turns at free slots: a key that started an item goes to the back of the line, a
 *   key that had nothing waiting joins at the front.
 * - An item **under way** holds one slot of each of its *slot keys* (for deliveries: its endpoint,
 *   its destination host, its installation) from its start until it is `finished`; an item starts
 *   only while every one of those keys is under its cap, and while fewer than `concurrency` items
 *   are in flight on the node.
 * - An item may be **waiting for a retry** (`retryAt`): it keeps its slots, leaves the in-flight
 *   count, and runs again when due, whatever the caps (a started item never waits for a slot, so
 *   its retry windows stay exact).
 * - A turn key may have a **rate** (`rateOf`: starts per second, bursts of one second's worth): its
 *   items start no faster, whatever slots are free, and the pool looks again when the next may.
 *   Retries are not held back (their windows stay exact).
 * - **Reserved** places count as waiting for a turn key before their item arrives (an insert not
 *   yet committed), so bounds on what waits hold across that gap.
 *
 * The pool knows nothing of databases or leases: its owner (the delivery engine) claims work,
 * adds it, runs what the pool starts, and tells it how each run ended.
 */
import { Pace } from './pace.js';

export interface KeyedPoolOptions<T> {
  /** Items in flight at once (retries that come due may go past it). */
  concurrency: number;
  /** The key whose items take turns: one queue per turn key. */
  turnOf(item: T): string;
  /** The keys an item holds a slot of while under way. */
  slotsOf(item: T): readonly string[];
  /** How many items may be under way for a slot key (read each time: caps may change). */
  capOf(slot: string): number;
  /** Starts an item's work; the owner later calls `finished` or `retryAt` for it. */
  run(item: T): void;
  /** An item's identity: `has` answers whether the pool holds it (waiting, in flight or waiting for a retry). */
  idOf(item: T): string | number;
  /** Most starts per second of a turn key's items, or undefined for no limit (read each time). */
  rateOf?(turn: string): number | undefined;
  /** The clock rates are counted by (Unix ms; default Date.now). */
  now?(): number;
}

export class KeyedPool<T> {
  /** Waiting items per turn key, in turn order (a Map keeps insertion order). */
  private readonly queues = new Map<string, T[]>();
  private readonly reserved = new Map<string, number>();
  private readonly underWay = new Map<string, number>();
  private readonly timers = new Map<T, NodeJS.Timeout>();
  private readonly ids = new Set<string | number>();
  private waitingCount = 0;
  private reservedCount = 0;
  private flying = 0;
  private pumping = false;
  private pumpAgain = false;
  private readonly pace: Pace | undefined;
  /** A look again when a rate-limited turn key may start its next item, and when. */
  private paceTimer: { timer: NodeJS.Timeout; at: number } | undefined;

  constructor(private readonly options: KeyedPoolOptions<T>) {
    const { rateOf } = options;
    this.pace = rateOf ? new Pace(rateOf, options.now ?? Date.now) : undefined;
  }

  /** Items in flight. */
  get inFlight(): number {
    return this.flying;
  }

  /** Items waiting for a slot, and places reserved, on the whole node. */
  get waiting(): number {
    return this.waitingCount + this.reservedCount;
  }

  /** Items waiting for a slot, and places reserved, under one turn key. */
  waitingOf(turn: string): number {
    return (this.queues.get(turn)?.length ?? 0) + (this.reserved.get(turn) ?? 0);
  }

  /** Items under way (in flight or waiting for a retry) holding a slot of `slot`. */
  underWayOf(slot: string): number {
    return this.underWay.get(slot) ?? 0;
  }

  /** Whether the pool holds the item of this id (waiting, in flight, or waiting for a retry). */
  has(id: string | number): boolean {
    return this.ids.has(id);
  }

  /** Turn keys with items waiting. */
  turns(): IterableIterator<string> {
    return this.queues.keys();
  }

  /** Every item waiting for a slot (not those under way). */
  *waitingItems(): Generator<T> {
    for (const queue of this.queues.values()) yield* queue;
  }

  /** Holds a place for an item of `turn` that is on its way; `add` it (or `unreserve`) later. */
  reserve(turn: string): void {
    this.reserved.set(turn, (this.reserved.get(turn) ?? 0) + 1);
    this.reservedCount++;
  }

  unreserve(turn: string): void {
    const n = (this.reserved.get(turn) ?? 0) - 1;
    if (n > 0) this.reserved.set(turn, n);
    else this.reserved.delete(turn);
    this.reservedCount--;
  }

  /** Queues items at the back of their turn keys' queues, and starts what fits. */
  add(items: Iterable<T>): void {
    for (const item of items) {
      this.ids.add(this.options.idOf(item));
      const turn = this.options.turnOf(item);
      const queue = this.queues.get(turn);
      if (queue) queue.push(item);
      else this.firstInLine(turn, [item]);
      this.waitingCount++;
    }
    this.pump();
  }

  /** Puts items taken out with `take` back at the front of their queues, in the order given. */
  putBack(items: T[]): void {
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i] as T;
      this.ids.add(this.options.idOf(item));
      const turn = this.options.turnOf(item);
      const queue = this.queues.get(turn);
      if (queue) queue.unshift(item);
      else this.firstInLine(turn, [item]);
      this.waitingCount++;
    }
    this.pump();
  }

  /** Starts an item at once, whatever the caps (a retry that came due elsewhere): it takes its slots all the same. */
  force(item: T): void {
    this.ids.add(this.options.idOf(item));
    this.takeSlots(item);
    this.flying++;
    this.options.run(item);
  }

  /**
   * Takes the item waiting first under `item`'s turn key, if `joins` holds for it, to run after it
   * in its slots. It stays in the pool (`has`) until `finished(item, along)`.
   */
  takeNext(item: T, joins: (next: T) => boolean): T | undefined {
    const turn = this.options.turnOf(item);
    const queue = this.queues.get(turn);
    const next = queue?.[0];
    if (!queue || next === undefined || !joins(next) || (this.pace && !this.pace.take(turn))) return undefined;
    queue.shift();
    if (queue.length === 0) this.queues.delete(turn);
    this.waitingCount--;
    return next;
  }

  /** An item's run ended for good (with the items it took with `takeNext`): its slots free up for the next. */
  finished(item: T, along: readonly T[] = []): void {
    this.ids.delete(this.options.idOf(item));
    for (const rider of along) this.ids.delete(this.options.idOf(rider));
    this.flying--;
    for (const slot of this.options.slotsOf(item)) this.bump(slot, -1);
    this.pump();
  }

  /** An item's run ended and it runs again at `at` (Unix ms), keeping its slots meanwhile. */
  retryAt(item: T, at: number, now: number): void {
    this.flying--;
    this.timers.set(
      item,
      setTimeout(
        () => {
          if (!this.timers.delete(item)) return;
          this.flying++;
          this.options.run(item);
        },
        Math.max(0, at - now),
      ),
    );
    // (Its slots stay taken; the in-flight room it left may start another.)
    this.pump();
  }

  /** Takes waiting items that match out of the pool (they give up their places). */
  take(matches: (item: T) => boolean): T[] {
    const taken: T[] = [];
    for (const [turn, queue] of [...this.queues]) {
      const keep = queue.filter((item) => !matches(item));
      if (keep.length === queue.length) continue;
      for (const item of queue) if (matches(item)) taken.push(item);
      if (keep.length > 0) this.queues.set(turn, keep);
      else this.queues.delete(turn);
    }
    this.waitingCount -= taken.length;
    for (const item of taken) this.ids.delete(this.options.idOf(item));
    return taken;
  }

  /**
   * Empties the pool for a stop: answers every item waiting for a slot or for its retry (their
   * timers cancelled, their slots given up). Items in flight stay in flight.
   */
  drain(): T[] {
    const items = this.take(() => true);
    for (const [item, timer] of this.timers) {
      clearTimeout(timer);
      for (const slot of this.options.slotsOf(item)) this.bump(slot, -1);
      this.ids.delete(this.options.idOf(item));
      items.push(item);
    }
    this.timers.clear();
    if (this.paceTimer) clearTimeout(this.paceTimer.timer);
    this.paceTimer = undefined;
    return items;
  }

  /**
   * A turn key that had nothing waiting goes first in line: the keys already in line have had
   * their turns (each went to the back when it started one).
   */
  private firstInLine(turn: string, queue: T[]): void {
    if (this.queues.size === 0) this.queues.set(turn, queue);
    else {
      const line = [...this.queues];
      this.queues.clear();
      this.queues.set(turn, queue);
      for (const [key, waiting] of line) this.queues.set(key, waiting);
    }
  }

  /**
   * Starts waiting items while they fit, the turn keys taking turns: each pass looks at the first
   * item of every turn key once, and a key that started one goes to the back.
   */
  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        let started = true;
        while (started && this.flying < this.options.concurrency) {
          started = false;
          for (const [turn, queue] of [...this.queues]) {
            if (this.flying >= this.options.concurrency) break;
            const item = queue[0] as T;
            if (!this.fits(item)) continue;
            if (this.pace && !this.pace.take(turn)) {
              this.lookAgainAt(this.pace.nextAt(turn));
              continue;
            }
            queue.shift();
            this.waitingCount--;
            this.queues.delete(turn);
            if (queue.length > 0) this.queues.set(turn, queue);
            this.takeSlots(item);
            this.flying++;
            started = true;
            this.options.run(item);
          }
        }
      } while (this.pumpAgain);
    } finally {
      this.pumping = false;
    }
  }

  /** Pumps again at `at` (Unix ms on the pool's clock), unless a look is due sooner. */
  private lookAgainAt(at: number | undefined): void {
    if (at === undefined || (this.paceTimer !== undefined && this.paceTimer.at <= at)) return;
    if (this.paceTimer) clearTimeout(this.paceTimer.timer);
    const now = (this.options.now ?? Date.now)();
    const timer = setTimeout(
      () => {
        this.paceTimer = undefined;
        this.pump();
      },
      Math.max(1, at - now),
    );
    this.paceTimer = { timer, at };
  }

  private fits(item: T): boolean {
    for (const slot of this.options.slotsOf(item)) if (this.underWayOf(slot) >= this.options.capOf(slot)) return false;
    return true;
  }

  private takeSlots(item: T): void {
    for (const slot of this.options.slotsOf(item)) this.bump(slot, 1);
  }

  private bump(slot: string, by: number): void {
    const n = this.underWayOf(slot) + by;
    if (n > 0) this.underWay.set(slot, n);
    else this.underWay.delete(slot);
  }
}
