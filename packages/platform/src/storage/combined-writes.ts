/**
 * Writes of one kind that arrive together, run as one statement: on PostgreSQL each statement
 * outside a transaction is a round trip and a commit of its own, and a delivery's result (its
 * attempt's line and its new state) was one per delivered event (decision 058). A write waits for
 * the end of the turn of the event loop it was asked in, then goes with every write of its kind
 * asked meanwhile, in a statement of its own while fewer than `parallel` run; otherwise it waits
 * for one of them to end, and goes with every write that waited meanwhile. So at a low rate each
 * write goes at once (after that turn), and under load statements take more writes each. Each
 * write resolves with its own answer once its statement has committed.
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
  private running = 0;
  private looking = false;
  /** Statements run so far, and writes they took (tests and benchmarks). */
  statements = 0;
  writes = 0;

  constructor(
    /** One statement for all of `inputs`: answers one output per input, in their order. */
    private readonly runMany: (inputs: I[]) => Promise<O[]>,
    options: {
      /** Most writes one statement takes. */
      most?: number;
      /** Statements running at once at most. */
      parallel?: number;
    } = {},
  ) {
    this.most = options.most ?? 500;
    this.parallel = options.parallel ?? 1;
  }

  private readonly most: number;
  private readonly parallel: number;

  run(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.looking) {
        this.looking = true;
        setImmediate(() => {
          this.looking = false;
          this.start();
        });
      }
    });
  }

  /** Starts statements for what waits, while fewer than `parallel` run. */
  private start(): void {
    while (this.queue.length > 0 && this.running < this.parallel) {
      const batch = this.queue.splice(0, this.most);
      this.running++;
      void this.settle(batch).finally(() => {
        this.running--;
        this.start();
      });
    }
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
