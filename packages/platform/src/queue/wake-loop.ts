/**
 * A background loop that runs its work when woken (never twice at once: a wake during a run
 * runs it again right after), then sleeps for the delay it is given and runs again. The
 * dispatcher and the delivery engine both work this way.
 */
export class WakeLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly run: () => Promise<void>,
    /** How long to sleep after a run (ms). */
    private readonly delay: () => Promise<number> | number,
    private readonly onError: (error: unknown) => void,
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Stops sleeping and waits for the run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  wake(): void {
    if (this.stopped) return;
    this.again = true;
    if (this.running) return;
    clearTimeout(this.timer);
    this.running = (async () => {
      while (this.again && !this.stopped) {
        this.again = false;
        try {
          await this.run();
        } catch (error) {
          this.onError(error);
        }
      }
      if (this.stopped) return;
      let delay: number;
      try {
        delay = await this.delay();
      } catch (error) {
        this.onError(error);
        delay = 1000;
      }
      if (!this.stopped) this.timer = setTimeout(() => this.wake(), delay);
    })().finally(() => {
      this.running = undefined;
      // A wake that came while the run was ending (or the delay was computed) is not lost.
      if (this.again) this.wake();
    });
  }
}
