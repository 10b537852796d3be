/**
 * Watches an integration's directory for `portico dev` (chokidar: native file events, atomic
 * saves by editors seen as one change). Changes that come together (a save that writes several
 * files, a formatter run) are reported once, after a short quiet moment; node_modules, .git and
 * the directories Portico writes are not watched.
 */
import { relative, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { DEV_DIR } from '../dev-server-file.js';

/** Quiet time after a change before it is reported. */
const SETTLE_MS = 15;
const IGNORED = new Set(['node_modules', '.git', DEV_DIR, '.portico', 'dist']);

export class SourceWatcher {
  private readonly watcher: FSWatcher;
  private changed = new Set<string>();
  private firstAt = 0;
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param onChange called with the changed paths (relative to `dir`) and when the first of
   *   them was seen (performance.now())
   */
  constructor(
    private readonly dir: string,
    private readonly onChange: (paths: string[], firstSeenAt: number) => void,
  ) {
    this.watcher = watch(dir, {
      ignoreInitial: true,
      ignored: (path) =>
        relative(dir, path)
          .split(sep)
          .some((part) => IGNORED.has(part)),
    });
    this.watcher.on('all', (_event, path) => this.note(path));
  }

  /** Resolves once the initial scan is done: changes from then on are reported. */
  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.watcher.once('ready', resolve);
      this.watcher.once('error', reject);
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.watcher.close();
  }

  private note(path: string): void {
    if (this.changed.size === 0) this.firstAt = performance.now();
    this.changed.add(relative(this.dir, path));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const paths = [...this.changed];
      this.changed = new Set();
      this.onChange(paths, this.firstAt);
    }, SETTLE_MS);
  }
}
