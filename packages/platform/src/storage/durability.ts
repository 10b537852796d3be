/**
 * When a commit is on disk. PostgreSQL answers a commit once it is (synchronous_commit), so there
 * nothing waits. SQLite runs with `synchronous = NORMAL` in WAL mode: a commit writes its frames to
 * the write-ahead log without syncing it (a crash of this process loses nothing; a power loss may
 * lose the last commits, never one in the middle: the log is replayed up to the first frame that
 * is missing). Before the API acknowledges a request that wrote, the log is synced here, on
 * libuv's thread pool: the event loop goes on meanwhile, and one sync covers every commit made
 * before it started (with `synchronous = FULL` each commit synced on the event loop). Engine
 * work (claims, results) is not acknowledged to anyone, so it does not wait: after a power loss
 * it is done again, as after any crash. See decision 014.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface Durability {
  /** A mark of the writes so far; `after(mark)` waits for the ones made since. */
  mark(): number;
  /** Resolves once every commit made since `mark` (and before this call) is on disk. */
  after(mark: number): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL: a commit is durable when it answers. */
export const DURABLE_AT_COMMIT: Durability = {
  mark: () => 0,
  after: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

/** SQLite in WAL mode with `synchronous = NORMAL`: syncs `${file}-wal` on request, many commits per sync. */
export class WalSync implements Durability {
  private writes = 0;
  private synced = 0;
  /** Syncs made so far (for tests). */
  syncs = 0;
  private log: Promise<FileHandle> | undefined;
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly databaseFile: string) {}

  /** Called for every statement that may write (cheap: a counter). */
  wrote(): void {
    this.writes++;
  }

  mark(): number {
    return this.writes;
  }

  after(mark: number): Promise<void> {
    if (this.writes === mark || this.synced >= this.writes) return Promise.resolve();
    return this.sync();
  }

  /** Resolves once a sync that started after this call has finished. */
  private sync(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.syncNow().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    // The sync in flight may have started before the caller's commit: one more after it, shared
    // by everyone who asks meanwhile.
    this.next ??= this.running
      .catch(() => {})
      .then(() => {
        this.next = undefined;
        return this.sync();
      });
    return this.next;
  }

  private async syncNow(): Promise<void> {
    const upTo = this.writes;
    this.log ??= this.openLog().catch((error) => {
      this.log = undefined;
      throw error;
    });
    await (await this.log).datasync();
    this.syncs++;
    this.synced = Math.max(this.synced, upTo);
  }

  /** The log file, kept open; its directory is synced once so the file itself survives a power loss. */
  private async openLog(): Promise<FileHandle> {
    const log = await open(`${this.databaseFile}-wal`, 'r+');
    const directory = await open(dirname(this.databaseFile), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
    return log;
  }

  async close(): Promise<void> {
    await this.running?.catch(() => {});
    const log = await this.log?.catch(() => undefined);
    this.log = undefined;
    await log?.close();
  }
}
