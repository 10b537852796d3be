/**
 * Circuit breakers for integrations whose worker keeps timing out or crashing (DESIGN.md
 * "Isolation"). After `threshold` such failures in a row the breaker opens: the integration's
 * owed work waits `baseDelayMs`, then one dispatch probes it (half-open). A probe that fails
 * opens it again for twice as long (up to `maxDelayMs`); one that succeeds closes it. Any answer
 * from the integration, even an error status, counts as a success: the worker is alive.
 */

export interface BreakerOptions {
  threshold?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  now: () => number;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface Opened {
  /** Time the breaker lets a probe through (Unix ms). */
  until: number;
  delayMs: number;
  /** Failures in a row that led here. */
  failures: number;
}

interface Entry {
  failures: number;
  /** How many times it opened without a successful probe in between. */
  trips: number;
  openUntil: number | undefined;
}

export class CircuitBreakers {
  private readonly entries = new Map<string, Entry>();
  private readonly threshold: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: BreakerOptions) {
    this.threshold = options.threshold ?? 3;
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 5 * 60 * 1000;
  }

  state(key: string): BreakerState {
    const entry = this.entries.get(key);
    if (entry?.openUntil === undefined) return 'closed';
    return this.options.now() < entry.openUntil ? 'open' : 'half-open';
  }

  /** Keys whose breaker is not closed, with their state. */
  tripped(): [string, Exclude<BreakerState, 'closed'>][] {
    const out: [string, Exclude<BreakerState, 'closed'>][] = [];
    for (const key of this.entries.keys()) {
      const state = this.state(key);
      if (state !== 'closed') out.push([key, state]);
    }
    return out;
  }

  succeeded(key: string): void {
    this.entries.delete(key);
  }

  /** Counts a timeout or crash; answers how long the work waits when this opens the breaker. */
  failed(key: string): Opened | undefined {
    const entry = this.entries.get(key) ?? { failures: 0, trips: 0, openUntil: undefined };
    this.entries.set(key, entry);
    entry.failures += 1;
    const state = this.state(key);
    // Dispatches that started before it opened end while it is open: they do not trip it again.
    if (state === 'open') return undefined;
    if (state === 'closed' && entry.failures < this.threshold) return undefined;
    entry.trips += 1;
    const delayMs = Math.min(this.baseDelayMs * 2 ** (entry.trips - 1), this.maxDelayMs);
    entry.openUntil = this.options.now() + delayMs;
    return { until: entry.openUntil, delayMs, failures: entry.failures };
  }
}
