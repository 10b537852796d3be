/**
 * Writes of one kind that arrive together, run as one statement: on PostgreSQL each statement
 * outside a transaction is a round trip and a commit of its own, and a delivery's result (its
 * attempt's line and its new state) was one per delivered event (decision 058). A write waits for
 * the end of the turn of the event loop it was asked in, then goes with every write of its kind
 * asked meanwhile; while a statement runs, the next writes wait for it and go together after it.
 * Alone, a write goes at once (after that turn). Each write resolves with its own answer once its
 * statement has committed.
 *
 * Should a statement of several writes fail for another reason than the database being
 * unreachable (which every write would meet alone too), each of them runs again alone, so that
 * one write's fault is its own.
 */
import { isDatabaseUnavailable } from './database-faults.js';

interface Waiting<I, O> {
  input: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export class CombinedWrites<I, O> {
  private queue: Waiting<I, O>[] = [];
  private running = false;
  /** Statements run so far, and writes they took (tests and benchmarks). */
  statements = 0;
  writes = 0;

  constructor(
    /** One statement for all of `inputs`: answers one output per input, in their order. */
    private readonly runMany: (inputs: I[]) => Promise<O[]>,
    /** Most writes one statement takes. */
    private readonly most = 500,
  ) {}

  run(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.most);
      await this.settle(batch);
    }
    this.running = false;
  }

  private async settle(batch: Waiting<I, O>[]): Promise<void> {
    this.statements++;
    this.writes += batch.length;
    try {
      const outputs = await this.runMany(batch.map((w) => w.input));
      for (const [i, waiting] of batch.entries()) waiting.resolve(outputs[i] as O);
    } catch (error) {
      if (batch.length === 1 || isDatabaseUnavailable(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      for (const waiting of batch) await this.settle([waiting]);
    }
  }
}
