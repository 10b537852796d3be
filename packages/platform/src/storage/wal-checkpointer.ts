/**
 * SQLite's checkpoints, off the event loop. In WAL mode a commit appends pages to the log, and
 * every so often a checkpoint copies them back into the database file and syncs it. By default the
 * commit that takes the log past 1,000 pages runs that checkpoint itself, on the event loop: about a
 * quarter of the time commits took in the end-to-end benchmark (decision 024). Here the writing
 * connection never checkpoints; a worker thread with a connection of its own runs a PASSIVE
 * checkpoint (it never waits for, nor blocks, readers and the writer) every `intervalMs`. Once a
 * checkpoint has copied the whole log, the next commit starts it again from its beginning, so the
 * log stays as small as before.
 *
 * Under writes that never pause, a checkpoint never finds the whole log copied: commits add to it
 * while it runs, and the log grew by about 45 MB a second in the delivery benchmark (decision 042).
 * So once the log is past its limit, the writes wait for `catchUp` (database.ts): a checkpoint with
 * no commit meanwhile copies the rest, and the next commit starts the log again from its beginning
 * (and cuts the file back to the limit: journal_size_limit).
 *
 * The thread is a part of this process: it ends with it, whatever ends it. Should it fail (it
 * could not open the database, say), the writing connection checkpoints as SQLite does by default,
 * so the log never grows without bound.
 */
import { Worker } from 'node:worker_threads';

export interface WalCheckpointer {
  /** Stops the thread; resolves once it has ended. */
  close(): Promise<void>;
  /**
   * Checkpoints now; with no write meanwhile that copies the whole log, so the next commit starts it
   * again. Resolves once the checkpoint has run (or could not: the caller asks again later).
   */
  catchUp(): Promise<void>;
}

/** A catch-up that takes longer than this lets the writes go on (the next one tries again). */
const CATCH_UP_LIMIT_MS = 5000;

export function startWalCheckpointer(
  file: string,
  /** Told when the thread failed or ended by itself: the caller checkpoints itself from then on. */
  onFailure: (error: Error) => void,
  intervalMs = 200,
): WalCheckpointer {
  const worker = new Worker(new URL('../../libexec/wal-checkpointer-thread.mjs', import.meta.url), {
    workerData: { file, intervalMs },
  });
  // The process does not wait for it to exit.
  worker.unref();
  let closing = false;
  let failed = false;
  /** Ends the catch-up under way. */
  let caughtUp: (() => void) | undefined;
  const fail = (error: Error) => {
    caughtUp?.();
    if (closing || failed) return;
    failed = true;
    onFailure(error);
  };
  worker.on('message', () => caughtUp?.());
  worker.on('error', fail);
  const ended = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      fail(new Error(`the checkpoint thread ended (exit code ${code})`));
      resolve();
    }),
  );
  return {
    catchUp: () =>
      new Promise<void>((resolve) => {
        if (caughtUp !== undefined || failed || closing) return resolve();
        const timer = setTimeout(() => caughtUp?.(), CATCH_UP_LIMIT_MS);
        caughtUp = () => {
          clearTimeout(timer);
          caughtUp = undefined;
          resolve();
        };
        worker.postMessage('catch-up');
      }),
    close: async () => {
      closing = true;
      caughtUp?.();
      // Stopped at once, even while it is still starting (telling it to close waited for its start,
      // about 70 ms): a checkpoint it is in the middle of completes or is undone by the next one,
      // and the database's last connection checkpoints as it closes anyway. Referenced again while it
      // ends: a process waiting for nothing else would otherwise exit first (code 13, from a
      // top-level await).
      worker.ref();
      await worker.terminate();
      await ended;
    },
  };
}
