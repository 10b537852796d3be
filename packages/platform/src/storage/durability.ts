/**
 * When a commit is on disk. PostgreSQL answers a commit once it is (synchronous_commit), so there
 * nothing waits; its engine connections alone commit without waiting for the flush (database.ts,
 * `engineDb`, decision 062). SQLite runs with `synchronous = NORMAL` in WAL mode: a commit writes its frames to
 * the write-ahead log without syncing it (a crash of this process loses nothing; a power loss may
 * lose the last commits, never one in the middle: the log is replayed up to the first frame that
 * is missing). Before the API acknowledges a request that wrote, the log is synced here, on
 * libuv's thread pool: the event loop goes on meanwhile, and one sync covers every commit made
 * before it started (with `synchronous = FULL` each commit synced on the event loop). While a sync
 * is under way, writes wait for it before they commit, so that the next one covers them all in one
 * commit (`syncing`, decision 061). Engine work (claims, results) is not acknowledged to anyone,
 * so it waits for no sync of its own: after a power loss it is done again, as after any crash. See
 * decision 014.
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

/** The longest a write waits for the sync under way before it commits anyway (`WalSync.syncing`). */
export const HOLD_WRITES_UP_TO_MS = 100;

/** SQLite in WAL mode with `synchronous = NORMAL`: syncs `${file}-wal` on request, many commits per sync. */
export class WalSync implements Durability {
  /** Commits so far (`committed`). */
  private writes = 0;
  /** Commits on disk: every one counted before the last finished sync started. */
  private synced = 0;
  /** Syncs made so far (for tests). */
  syncs = 0;
  private log: Promise<FileHandle> | undefined;
  /** The sync under way, the commits counted when it started (all of which it covers), and `syncing`'s promise. */
  private running: { done: Promise<void>; upTo: number; held: Promise<void> } | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly databaseFile: string) {}

  /**
   * Called for every commit that wrote: a transaction's as it commits, a statement's outside one
   * as it runs (cheap: a counter). Not for a write inside a transaction: its frames reach the log
   * only at the commit, and a sync started between the two would not hold them.
   */
  committed(): void {
    this.writes++;
  }

  mark(): number {
    return this.writes;
  }

  after(mark: number): Promise<void> {
    if (this.writes === mark || this.synced >= this.writes) return Promise.resolve();
    return this.sync();
  }

  /**
   * The sync under way, if any: a promise that resolves when it ends (never rejecting), or after
   * HOLD_WRITES_UP_TO_MS should it take longer. Writes wait for it before they commit
   * (database.ts), then commit together, and the next sync covers them all: a write acknowledged
   * to its caller waits for that sync anyway, and this way there is about one commit per sync
   * instead of one per turn of the event loop. A disk that stalls holds no commit up for long.
   */
  syncing(): Promise<void> | undefined {
    return this.running?.held;
  }

  /** Resolves once a sync that started after every commit so far has finished. */
  private sync(): Promise<void> {
    const running = this.running;
    if (running === undefined) return this.start();
    // It started after every commit counted so far: it covers the caller's.
    if (running.upTo >= this.writes) return running.done;
    // One more after it, shared by everyone who asks meanwhile. It starts at the next turn of the
    // event loop, once the writes that waited for this sync have committed (a commit runs in
    // microtasks), so that it covers them too.
    this.next ??= running.done
      .catch(() => {})
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        this.next = undefined;
        return this.sync();
      });
    return this.next;
  }

  private start(): Promise<void> {
    const upTo = this.writes;
    const done = this.syncNow(upTo).finally(() => {
      if (this.running?.done === done) this.running = undefined;
    });
    const held = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, HOLD_WRITES_UP_TO_MS);
      done
        .catch(() => {})
        .then(() => {
          clearTimeout(timer);
          resolve();
        });
    });
    this.running = { done, upTo, held };
    return done;
  }

  private async syncNow(upTo: number): Promise<void> {
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
    await this.running?.done.catch(() => {});
    const log = await this.log?.catch(() => undefined);
    this.log = undefined;
    await log?.close();
  }
}
