/**
 * How many items each key may have under way, learnt from how its work ends: a key starts at
 * `initial`, grows by one with each success up to `max`, and halves (down to 1) when an attempt
 * times out or fails at the network level. A receiver path that hangs soon holds one connection,
 * not its host's whole cap; one that answers again grows back as it succeeds. A key that has
 * nothing under way is forgotten, and starts at `initial` again.
 */
export class AdaptiveLimits {
  private readonly limits = new Map<string, number>();

  constructor(private readonly options: { initial: number; max: number }) {}

  of(key: string): number {
    return this.limits.get(key) ?? Math.min(this.options.initial, this.options.max);
  }

  succeeded(key: string): void {
    const next = Math.min(this.of(key) + 1, this.options.max);
    this.limits.set(key, next);
  }

  /** A timeout or a network failure: the key's limit halves, down to 1. */
  failed(key: string): void {
    this.limits.set(key, Math.max(1, Math.floor(this.of(key) / 2)));
  }

  forget(key: string): void {
    this.limits.delete(key);
  }
}
