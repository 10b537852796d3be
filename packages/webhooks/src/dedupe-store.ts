/**
 * Where a receiver remembers the `eventId`s it has processed (spec 6.2: a repeated `eventId` is
 * a duplicate). Plug in a shared store (Redis, a database) when several receivers run.
 */
export interface DedupeStore {
  /** Marks `eventId` as seen for `ttlMs`; answers false when it was already seen and not expired. Must be atomic. */
  claim(eventId: string, ttlMs: number): Promise<boolean>;
  /** Forgets `eventId`, so a delivery whose processing failed is processed when it is retried. */
  release(eventId: string): Promise<void>;
}

/** An in-process store: a map from eventId to expiry, pruned as it is used. */
export class MemoryDedupeStore implements DedupeStore {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async claim(eventId: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    this.prune(now);
    const expiry = this.expiries.get(eventId);
    if (expiry !== undefined && expiry > now) return false;
    // Re-inserting keeps the map ordered by expiry (all entries share one TTL per receiver).
    this.expiries.delete(eventId);
    this.expiries.set(eventId, now + ttlMs);
    return true;
  }

  async release(eventId: string): Promise<void> {
    this.expiries.delete(eventId);
  }

  get size(): number {
    return this.expiries.size;
  }

  private prune(now: number): void {
    for (const [id, expiry] of this.expiries) {
      if (expiry > now) break;
      this.expiries.delete(id);
    }
  }
}
