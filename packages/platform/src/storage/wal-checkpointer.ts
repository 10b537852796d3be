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
 * The thread is a part of this process: it ends with it, whatever ends it.
 */
import { Worker } from 'node:worker_threads';

export interface WalCheckpointer {
  /** Stops the thread after one last checkpoint; resolves once it has ended. */
  close(): Promise<void>;
}

export function startWalCheckpointer(file: string, intervalMs = 200): WalCheckpointer {
  const worker = new Worker(new URL('../../libexec/wal-checkpointer-thread.mjs', import.meta.url), {
    workerData: { file, intervalMs },
  });
  // The process does not wait for it to exit, and an error in it (a checkpoint that failed) is
  // left to the next one: the log is only longer meanwhile.
  worker.unref();
  worker.on('error', () => {});
  const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    close: async () => {
      // Referenced again while it ends: a process waiting for nothing else would otherwise exit
      // before the thread's 'exit' arrives (with code 13, when that wait is a top-level await).
      worker.ref();
      worker.postMessage('close');
      await ended;
    },
  };
}
