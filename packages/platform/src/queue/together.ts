/**
 * Calls that arrive while one is under way wait, and then go together as one call on all their
 * items. What one call costs whatever its size (a statement's round trip and planning) is paid once
 * for all of them, and only when calls overlap: a lone call goes at once. Every caller gets the
 * answer of the call that carried its items, or its error.
 */
export class Together<I, R> {
  private waiting: { items: I[]; resolve(answer: R): void; reject(error: unknown): void }[] = [];
  private running = false;

  /** `call` runs the items of one or more callers; `most` caps the items of one call (a caller's items are never split). */
  constructor(
    private readonly call: (items: I[]) => Promise<R>,
    private readonly most = 1000,
  ) {}

  run(items: I[]): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ items, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length > 0) {
      let count = 0;
      let taken = 0;
      for (const caller of this.waiting) {
        if (taken > 0 && count + caller.items.length > this.most) break;
        count += caller.items.length;
        taken++;
      }
      const callers = this.waiting.splice(0, taken);
      try {
        const answer = await this.call(callers.flatMap((caller) => caller.items));
        for (const caller of callers) caller.resolve(answer);
      } catch (error) {
        for (const caller of callers) caller.reject(error);
      }
    }
    this.running = false;
  }
}
