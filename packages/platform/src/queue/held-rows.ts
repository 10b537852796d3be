import { Counts } from './counts.js';

/** What a row offered a free slot does: it started, its installation's next row is looked at, its installation waits, or nothing more starts now. */
export type SlotAnswer = 'started' | 'skip' | 'next' | 'stop';

/**
 * Rows a node has claimed ahead and holds in memory until a slot frees, per installation, oldest
 * first, with places reserved for rows whose claim has not committed yet. The dispatcher holds
 * outbox rows in one (decision 015), the delivery engine first attempts (decision 025).
 */
export class HeldRows<Row extends { installation_id: string; id: unknown }> {
  private readonly queues = new Map<string, Row[]>();
  private readonly reserved = new Counts();
  private count = 0;

  /** Rows held and places reserved, whatever the installations (what a node-wide bound counts). */
  get total(): number {
    return this.count;
  }

  /** Rows held for an installation, and places reserved for it. */
  of(installationId: string): number {
    return (this.queues.get(installationId)?.length ?? 0) + this.reserved.of(installationId);
  }

  /** Installations with rows held. */
  installations(): IterableIterator<string> {
    return this.queues.keys();
  }

  /** The ids of the rows held. */
  ids(): Set<Row['id']> {
    return new Set([...this.queues.values()].flatMap((queue) => queue.map((row) => row.id)));
  }

  /** Reserves a place for a row whose claim has not committed yet. */
  reserve(installationId: string): void {
    this.reserved.add(installationId);
    this.count++;
  }

  /** Ends a reservation (the row is then put in the hold, or does not come). */
  unreserve(installationId: string): void {
    this.reserved.add(installationId, -1);
    this.count--;
  }

  /** Puts claimed rows at the back of their installations' holds. */
  put(rows: Row[]): void {
    for (const row of rows) {
      const queue = this.queues.get(row.installation_id);
      if (queue) queue.push(row);
      else this.queues.set(row.installation_id, [row]);
    }
    this.count += rows.length;
  }

  /** Takes the rows that match out of the hold. */
  take(matches: (row: Row) => boolean): Row[] {
    const taken: Row[] = [];
    for (const [id, queue] of [...this.queues]) {
      const keep = queue.filter((row) => !matches(row));
      if (keep.length === queue.length) continue;
      taken.push(...queue.filter(matches));
      if (keep.length > 0) this.queues.set(id, keep);
      else this.queues.delete(id);
    }
    this.count -= taken.length;
    return taken;
  }

  /**
   * Offers held rows to the free slots, oldest first within an installation: `offer` starts a row
   * (its slots counted) or says why not. An installation that started one goes to the back, so the
   * installations take turns at the free slots.
   */
  startWhile(offer: (row: Row) => SlotAnswer): void {
    for (const [id, queue] of [...this.queues]) {
      let started = false;
      let stop = false;
      for (let i = 0; i < queue.length; ) {
        const answer = offer(queue[i] as Row);
        if (answer === 'started') {
          queue.splice(i, 1);
          this.count--;
          started = true;
        } else if (answer === 'skip') i++;
        else {
          stop = answer === 'stop';
          break;
        }
      }
      if (started || queue.length === 0) this.queues.delete(id);
      if (started && queue.length > 0) this.queues.set(id, queue);
      if (stop) return;
    }
  }
}
