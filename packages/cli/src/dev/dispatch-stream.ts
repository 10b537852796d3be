/**
 * The dispatches of `portico dev`'s installations, printed as they are recorded: one line each
 * (event type, installation, status, duration) followed by what the integration printed while
 * handling it, with bundle positions mapped to the TypeScript sources. Read from the embedded
 * platform's dispatch log with the live stream's feed (the rows `GET …/stream` sends), a few
 * times a second.
 */
import { type DispatchView, LiveFeed, type ServiceContext } from '@portico/platform';
import { formatDispatch } from '../dispatch-lines.js';
import type { SourceMaps } from './stack-traces.js';

export { clock, formatDispatch } from '../dispatch-lines.js';

/** How often the log is read. */
const POLL_MS = 100;

export interface WatchedInstallation {
  id: string;
  /** How the installation is named in the terminal, e.g. `space dev-space`. */
  label: string;
}

export class DispatchStream {
  private feeds = new Map<string, { feed: LiveFeed; label: string }>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly print: (text: string) => void,
    private readonly maps: SourceMaps,
    /** Dispatches recorded before this time (Unix ms) are not printed. */
    private readonly since: number,
  ) {}

  /** Follows these installations (feeds of installations already followed go on where they are). */
  follow(installations: WatchedInstallation[]): void {
    const next = new Map<string, { feed: LiveFeed; label: string }>();
    for (const { id, label } of installations) {
      const feed = this.feeds.get(id)?.feed ?? new LiveFeed(this.ctx, id, new Set(['dispatch']), { since: this.since });
      next.set(id, { feed, label });
    }
    this.feeds = next;
    if (this.timer === undefined && !this.stopped) this.schedule();
  }

  /** Prints what is left to print, then stops reading. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
    await this.poll().catch(() => {});
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.polling = this.poll()
        .catch((error) => this.print(`portico dev: could not read the dispatch log: ${(error as Error).message}\n`))
        .finally(() => {
          this.polling = undefined;
          if (!this.stopped) this.schedule();
        });
    }, POLL_MS);
  }

  private async poll(): Promise<void> {
    const found: { view: DispatchView; label: string }[] = [];
    for (const { feed, label } of this.feeds.values()) {
      for (const event of await feed.poll()) if (event.type === 'dispatch') found.push({ view: event.data, label });
    }
    found.sort((a, b) => a.view.id - b.view.id);
    for (const { view, label } of found) this.print(formatDispatch(view, label, this.maps));
  }
}
