/**
 * Waits for the signals that stop a long-running command (Ctrl-C's SIGINT, SIGTERM, SIGHUP) and
 * keeps them for it alone while it waits. Miniflare (under the workerd host) registers its own
 * SIGINT and SIGTERM listeners that end the process at once (exit code 130 or 143): the command
 * could then not close its platform, finish requests in flight or remove its files. Listeners
 * other code adds for these signals while this waits are removed again as they are added;
 * Miniflare's exit listener stays, so its workers still end if the process exits.
 */

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type StopSignal = (typeof SIGNALS)[number];

export class StopSignals {
  /** Resolves with the first signal received. */
  readonly received: Promise<StopSignal>;
  private first: StopSignal | undefined;
  private resolve!: (signal: StopSignal) => void;
  private readonly onSignal = (signal: StopSignal) => {
    if (this.first !== undefined) {
      this.onRepeat(signal);
      return;
    }
    this.first = signal;
    this.resolve(signal);
  };
  private readonly guard = (event: string | symbol, listener: (...args: unknown[]) => void) => {
    if (!SIGNALS.includes(event as StopSignal) || listener === this.onSignal) return;
    // 'newListener' comes before the listener is added: remove it right after.
    queueMicrotask(() => process.removeListener(event, listener));
  };

  /** @param onRepeat called when a signal comes again after the first (e.g. exit without waiting) */
  constructor(private readonly onRepeat: (signal: StopSignal) => void) {
    this.received = new Promise((resolve) => {
      this.resolve = resolve;
    });
    for (const signal of SIGNALS) process.on(signal, this.onSignal);
    process.on('newListener', this.guard);
  }

  /** The first signal received, if any. */
  get signal(): StopSignal | undefined {
    return this.first;
  }

  /** Stops listening (the default handling of the signals comes back). */
  dispose(): void {
    process.off('newListener', this.guard);
    for (const signal of SIGNALS) process.off(signal, this.onSignal);
  }
}
