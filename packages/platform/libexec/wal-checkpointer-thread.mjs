// The thread of src/storage/wal-checkpointer.ts: a PASSIVE checkpoint of the SQLite database every
// `intervalMs`, and a last one when told to close. Plain JavaScript, so the same file runs under the
// built package and under the tests (which run the TypeScript sources).
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
const timer = setInterval(checkpoint, intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
