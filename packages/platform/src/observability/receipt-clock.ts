/**
 * When this node stored each recent event, so a delivery's receipt can be timed from the event's
 * ingest without reading the event back (no SQL per event). Bounded: the oldest entries go once
 * `max` are kept, and an entry older than `maxAgeMs` no longer counts. A delivery of an event
 * ingested on another node, or before this one started, is not timed.
 */
export class ReceiptClock {
  private readonly storedAt = new Map<string, number>();

  constructor(
    private readonly max = 50_000,
    private readonly maxAgeMs = 60 * 60 * 1000,
  ) {}

  stored(eventId: string, at: number): void {
    if (this.storedAt.size >= this.max) {
      // A Map iterates in insertion order: the first key is the oldest.
      const oldest = this.storedAt.keys().next().value;
      if (oldest !== undefined) this.storedAt.delete(oldest);
    }
    this.storedAt.set(eventId, at);
  }

  /** Seconds from the event's ingest on this node to `at`; undefined when this node did not see it recently. */
  since(eventId: string, at: number): number | undefined {
    const stored = this.storedAt.get(eventId);
    if (stored === undefined || at - stored > this.maxAgeMs) return undefined;
    return Math.max(0, at - stored) / 1000;
  }

  get size(): number {
    return this.storedAt.size;
  }
}
