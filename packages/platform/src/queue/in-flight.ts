/**
 * Work started and not yet settled (dispatches, delivery attempts), so that a stop can wait for it,
 * for as long as it is given, and a test can wait for what one pass started.
 */
export class InFlight {
  private readonly running = new Set<Promise<void>>();

  get size(): number {
    return this.running.size;
  }

  /** Keeps `work` here until it settles (it must handle its own errors). */
  add(work: Promise<void>): void {
    this.running.add(work);
    const forget = () => this.running.delete(work);
    work.then(forget, forget);
  }

  /** Waits until nothing runs, or `graceMs` has passed; answers whether nothing runs. */
  async settled(graceMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    const deadline = performance.now() + graceMs;
    while (this.running.size > 0 && performance.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const left = Math.min(deadline - performance.now(), 2 ** 31 - 1);
      await Promise.race([
        Promise.allSettled([...this.running]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, left);
        }),
      ]);
      clearTimeout(timer);
    }
    return this.running.size === 0;
  }

  /** Runs `start` and waits for the work it added here; answers how much that was. */
  async startedBy(start: () => Promise<unknown>): Promise<number> {
    const before = new Set(this.running);
    await start();
    const started = [...this.running].filter((work) => !before.has(work));
    await Promise.allSettled(started);
    return started.length;
  }
}
