/**
 * Rate limits per key: at most `rate` starts per second on average, with bursts of up to one
 * second's worth (a token bucket holding `max(1, rate)` tokens, refilled at `rate` per second).
 * A key with no rate is never held back, and keeps no bucket. The caller asks `take` before it starts an item of a key,
 * and `nextAt` tells when a held-back key may start again.
 */
export class Pace {
  private readonly buckets = new Map<string, { tokens: number; at: number; rate: number }>();

  constructor(
    /** Starts per second allowed for a key, or undefined for no limit (read each time: limits may change). */
    private readonly rateOf: (key: string) => number | undefined,
    private readonly now: () => number,
  ) {}

  /** Takes one start for `key`: false when its rate allows none now. */
  take(key: string): boolean {
    const bucket = this.refilled(key);
    if (bucket === undefined) return true;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** When `key` may start again (Unix ms), or undefined when it may now. */
  nextAt(key: string): number | undefined {
    const bucket = this.refilled(key);
    if (bucket === undefined || bucket.tokens >= 1) return undefined;
    return bucket.at + Math.ceil(((1 - bucket.tokens) / bucket.rate) * 1000);
  }

  private refilled(key: string) {
    const rate = this.rateOf(key);
    if (rate === undefined) {
      this.buckets.delete(key);
      return undefined;
    }
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: Math.max(1, rate), at: this.now(), rate };
      this.buckets.set(key, bucket);
    } else this.refill(bucket, rate);
    return bucket;
  }

  private refill(bucket: { tokens: number; at: number; rate: number }, rate: number): void {
    const now = this.now();
    bucket.tokens = Math.min(Math.max(1, rate), bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    bucket.rate = rate;
  }
}
