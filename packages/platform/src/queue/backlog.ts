import type { KeyedPool } from './keyed-pool.js';

/**
 * What a node knows of the work waiting unclaimed in the database, beside its pool: which turn keys
 * have work left there (it was made while their place in the pool was full), and whether work it
 * knows nothing of may wait (another node's, a retry, before its first claim). Both engines use it
 * to decide when new work may go straight into the pool (it must not overtake older work of its
 * key left in the database), when a claim is worth making, and how much of a claim each key takes.
 *
 * Bounds: the node holds at most `hold × keys` items waiting in the pool. Each turn key may have
 * `hold` of them, and more while the node holds less than half its bound: a burst for one key (a
 * batch of events to one endpoint) goes straight into the pool, with no claim, while the other
 * half stays for the other keys' `hold` each. A claim leaves out keys with half a hold of room or
 * less, so it takes work for those that can use it.
 *
 * Two kinds of claim: one that looks at everything (`complete` when it saw all it could take), and,
 * while this node knows what waits, one that looks only at the keys with work left and room
 * (`targets`), each up to its room, so it reads no rows it cannot take.
 */
/** Most keys a claim looks at one by one; with more it looks at everything. */
const MOST_TARGETS = 8;

export class Backlog<T> {
  /** The most items waiting on the node. */
  private readonly bound: number;
  /**
   * Turn keys with work left unclaimed in the database, each with when it was marked (a count of
   * marks): a claim clears only the marks made before it read (`readingNow`), not those of work
   * committed while it ran, which it may not have seen.
   */
  private left = new Map<string, number>();
  /** Whether work this node knows nothing of may wait unclaimed (from when, as a mark). */
  private unknown: number | undefined = 0;
  private marks = 0;

  constructor(
    private readonly pool: KeyedPool<T>,
    private readonly hold: number,
    keys: number,
  ) {
    this.bound = hold * keys;
  }

  /** Places left in the pool on this node. */
  get room(): number {
    return this.bound - this.pool.waiting;
  }

  /**
   * Whether new work of `turn` may go straight into the pool: nothing of its key waits unclaimed
   * (or may), and its place has room. When not, the key is marked: its work waits in the database.
   */
  mayTake(turn: string): boolean {
    if (this.unknown === undefined && !this.left.has(turn) && this.roomOf(turn) > 0) return true;
    this.leftFor(turn);
    return false;
  }

  /** Work of `turn` was left in the database. */
  leftFor(turn: string): void {
    this.left.set(turn, ++this.marks);
  }

  /** Work this node knows nothing of may wait (a wake from elsewhere). */
  lookAgain(): void {
    this.unknown = ++this.marks;
  }

  /** Called as a claim begins to read: give what it answers to `claimed` or `claimedTargets`. */
  readingNow(): number {
    return this.marks;
  }

  /** Whether a claim could take work now: work waits that this node knows nothing of, or for a key with room. */
  worthClaiming(): boolean {
    if (this.unknown !== undefined) return true;
    for (const turn of this.left.keys()) if (this.roomOf(turn) > this.hold / 2) return true;
    return false;
  }

  /**
   * The keys a claim may look at alone, each with its room in the pool: those with work left
   * unclaimed and more than half a hold of room. Undefined when the claim must look at everything:
   * work this node knows nothing of may wait, or more than `most` keys would be looked at.
   */
  targets(most = MOST_TARGETS): Map<string, number> | undefined {
    if (this.unknown !== undefined) return undefined;
    const targets = new Map<string, number>();
    for (const turn of this.left.keys()) {
      const room = this.roomOf(turn);
      if (room <= this.hold / 2) continue;
      if (targets.size === most) return undefined;
      targets.set(turn, room);
    }
    return targets;
  }

  /** A claim of `targets` committed: a key that gave fewer rows than its room has none left unclaimed. */
  claimedTargets(targets: Map<string, number>, found: Map<string, number>, since = this.marks): void {
    for (const [turn, room] of targets) if ((found.get(turn) ?? 0) < room) this.clear(turn, since);
  }

  /** Turn keys a claim leaves out: they have half a hold of room or less. */
  full(): string[] {
    return [...this.pool.turns()].filter((turn) => this.roomOf(turn) <= this.hold / 2);
  }

  /** What a claim takes of the rows it found: up to its key's room in the pool each (`roomOf`, counting what it took); `skipped`, the keys it left some of. */
  take<R>(rows: R[], turnOf: (row: R) => string): { taken: R[]; skipped: Set<string> } {
    const taken: R[] = [];
    const skipped = new Set<string>();
    const per = new Map<string, number>();
    for (const row of rows) {
      const turn = turnOf(row);
      const n = per.get(turn) ?? 0;
      if (this.roomOf(turn, taken.length, n) <= 0) skipped.add(turn);
      else {
        per.set(turn, n + 1);
        taken.push(row);
      }
    }
    return { taken, skipped };
  }

  /**
   * A claim committed. One that saw every row it could (`complete`) also learnt that the keys this
   * node knew of have none left, but those it left out (`full`), those it skipped some of, and those
   * marked after it began to read (`since`, from `readingNow`).
   */
  claimed(claim: { skipped: Set<string>; full: string[]; complete: boolean }, since = this.marks): void {
    if (claim.complete) {
      for (const turn of [...this.left.keys()]) if (!claim.full.includes(turn)) this.clear(turn, since);
      if (this.unknown !== undefined && this.unknown <= since) this.unknown = undefined;
    }
    for (const turn of claim.skipped) this.leftFor(turn);
  }

  /** Clears the mark of `turn` unless it was made after `since` (work a claim reading then may not have seen). */
  private clear(turn: string, since: number): void {
    if ((this.left.get(turn) ?? 0) <= since) this.left.delete(turn);
  }

  /**
   * How many more items `turn` may have waiting (with `more` taken but not yet in the pool, `ofTurn`
   * of them its own): up to its `hold`, or while the node holds less than half its bound, up to
   * that half; never past the bound.
   */
  private roomOf(turn: string, more = 0, ofTurn = 0): number {
    const waiting = this.pool.waiting + more;
    const own = this.hold - this.pool.waitingOf(turn) - ofTurn;
    const shared = this.bound / 2 - waiting;
    return Math.max(0, Math.min(this.bound - waiting, Math.max(own, shared)));
  }
}
