// The thread of src/storage/wal-checkpointer.ts: a PASSIVE checkpoint of the SQLite database every
// `intervalMs`, until the thread is terminated; asked to catch up (`'catch-up'`), it checkpoints at
// once and answers `'checkpointed'`. Plain JavaScript, so the same file runs under the built package
// and under the tests (which run the TypeScript sources).
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

const { file, intervalMs } = workerData;
const db = new SQLite(file);
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy (another checkpoint) or the disk refused: the next one tries again.
  }
};
setInterval(checkpoint, intervalMs);
parentPort?.on('message', (message) => {
  if (message !== 'catch-up') return;
  checkpoint();
  parentPort?.postMessage('checkpointed');
});
